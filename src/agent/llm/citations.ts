/**
 * Citations that always point at a real source. The model is given numbered passages and cites
 * them as [n]; this filter sits between its text deltas and the client and rewrites each marker
 * as it completes:
 * - a number outside the passages given ([0], [7] of 3) is dropped before anyone sees it;
 * - a valid number becomes its document's position in `sources` (the cited documents, in order
 *   of first citation), so `[k]` in the reply always means `sources[k-1]`; several passages of
 *   one document share its number. `[1, 3]` becomes `[1][2]` (one marker per source).
 * It is stream-safe: a marker split across deltas (`[2` then `]`) is held back until it
 * completes or can no longer be one. Text inside ``` code fences is left alone (`a[0]`).
 */

/** A possible start of a marker at the end of the text, still waiting for its `]`. */
const OPEN_TAIL = /\[[\d\s,]*$/;
/** A complete marker: [n], [n, m]. */
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
/** Longer than this, an open bracket is text, not a marker in progress. */
const MAX_MARKER = 24;
const FENCE = "```";

export class CitationFilter {
  /** The cited documents' URLs, in order of first citation. */
  readonly sources: string[] = [];
  /** How many of `sources` the client was told of (agent.ts sends them before the text citing them). */
  announced = 0;
  private held = "";
  private inFence = false;
  /** The end of what was shown, to merge a repeated marker. */
  private shown = "";

  /** `urls[i]` is the document of passage i+1, as numbered in the prompt. */
  constructor(private readonly urls: readonly string[]) {}

  /** The part of `text` (after what was held) that can be shown now. */
  push(text: string): string {
    const all = this.held + text;
    const tail = this.inFenceAt(all) ? null : OPEN_TAIL.exec(all);
    const keep = tail && all.length - tail.index <= MAX_MARKER ? tail.index : all.length;
    this.held = all.slice(keep);
    return this.rewrite(all.slice(0, keep));
  }

  /** What is still held at the end of the reply (an unfinished `[2` is text). */
  end(): string {
    const rest = this.held;
    this.held = "";
    return this.rewrite(rest);
  }

  /** Whether the text, after what was already shown, ends inside a code fence. */
  private inFenceAt(text: string): boolean {
    return (text.split(FENCE).length - 1) % 2 === 1 ? !this.inFence : this.inFence;
  }

  private rewrite(text: string): string {
    if (!text) return text;
    // Fenced code keeps its brackets: split on fences, rewrite outside them only.
    const parts = text.split(FENCE);
    let out = "";
    for (const [i, part] of parts.entries()) {
      if (i > 0) out += FENCE;
      const fenced = i % 2 === 0 ? this.inFence : !this.inFence;
      if (fenced) {
        out += part;
        continue;
      }
      let at = 0;
      for (const m of part.matchAll(MARKER)) {
        out += part.slice(at, m.index);
        at = m.index + m[0].length;
        for (const k of this.renumber(m[1]!)) {
          // Two passages of one document cited side by side ([1][3]) become one marker, not [2][2].
          if (!(this.shown + out).endsWith(`[${k}]`)) out += `[${k}]`;
        }
      }
      out += part.slice(at);
    }
    if ((parts.length - 1) % 2 === 1) this.inFence = !this.inFence;
    this.shown = (this.shown + out).slice(-16);
    return out;
  }

  /** The sources' numbers of a marker's passages; none when no passage has that number. */
  private renumber(group: string): number[] {
    const numbers = new Set<number>();
    for (const n of group.split(",")) {
      const url = this.urls[Number(n.trim()) - 1];
      if (url === undefined) continue; // [0], [7] of 3: no such passage
      let at = this.sources.indexOf(url);
      if (at < 0) at = this.sources.push(url) - 1;
      numbers.add(at + 1);
    }
    return [...numbers];
  }
}

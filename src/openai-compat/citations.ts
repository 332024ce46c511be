/**
 * Citation markers as every client can read them. By default each `[k]` naming a source becomes
 * a Markdown link `[k](url)`: clients that drop `url_citation` annotations (most chat UIs, the AI
 * SDK's compatible provider, LangChain) still render a link. `parley_citations: "markers"` keeps
 * the plain `[k]` Parley stores. Either way the annotations cover each marker exactly, over the
 * text the client receives. Fenced code is left alone: `a[1]` there is code, not a citation.
 * A streamed answer (CiteStream) sends each marker as soon as its source is known: the reply
 * sends its sources as they grow, before the text citing them.
 */
import { t } from "elysia";

export type CitationStyle = "links" | "markers";

/** The request field choosing the style, shared by both routes' bodies. */
export const citationsField = t.Optional(
  t.Union([t.Literal("links"), t.Literal("markers")], {
    description:
      "Parley's option: `links` (default) writes each citation marker as a Markdown link `[k](url)`; `markers` keeps the plain `[k]`. The `url_citation` annotations cover the marker either way.",
    examples: ["links"],
    error: "Invalid field 'parley_citations': it must be 'links' or 'markers'.",
  }),
);

/** One cited source, at its place in the text (UTF-16 code units, end exclusive). */
export interface Citation {
  url: string;
  title: string;
  start: number;
  end: number;
}

const FENCE = "```";
const MARKER = /\[(\d+)\]/g;
/** At an open bracket: the digits after it and, when there, the closing bracket. */
const OPEN = /\[(\d*)(\])?/y;

/** A link target that survives Markdown: spaces and parentheses would end it. */
const linkTarget = (url: string) => url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The text as the client receives it, and its citations. `[k]` is `sources[k-1]`. */
export function cite(
  content: string,
  sources: string[],
  titles: Map<string, string>,
  style: CitationStyle,
): { text: string; citations: Citation[] } {
  const citations: Citation[] = [];
  let text = "";
  for (const [i, part] of content.split(FENCE).entries()) {
    if (i > 0) text += FENCE;
    if (i % 2 === 1) {
      text += part;
      continue;
    }
    let at = 0;
    for (const m of part.matchAll(MARKER)) {
      const url = sources[Number(m[1]) - 1];
      if (url === undefined) continue;
      text += part.slice(at, m.index);
      const written = style === "links" ? `${m[0]}(${linkTarget(url)})` : m[0];
      citations.push({ url, title: titles.get(url) ?? url, start: text.length, end: text.length + written.length });
      text += written;
      at = m.index + m[0].length;
    }
    text += part.slice(at);
  }
  return { text, citations };
}

/** What a stream can send now: text, and the citations in it (`start`/`end` over all text sent). */
export interface Released {
  text: string;
  citations: Citation[];
}

/**
 * `cite` as the reply streams, equal to it at the end. The reply sends its sources as they
 * grow, each before the token citing it (replies/run.ts), and `[k]` is `sources[k-1]` for good
 * once known. Text goes out as it comes; in links style a marker outside code waits only until
 * its source is known, then goes out as its link; one whose source never comes goes out as it
 * is at the end. In markers style nothing waits for a source (the text is the same either way):
 * a citation is reported once its source is known. Citations are reported in the text's order.
 * A possible marker or fence split across tokens (`[` then `2]`, `` ` `` then `` `` ``) is held
 * only until it is one or is not.
 */
export class CiteStream {
  private raw = "";
  private at = 0;
  private inFence = false;
  private sentChars = 0;
  private sources: string[] = [];
  /** Markers sent whose citation is not reported yet (markers style: their source is unknown). */
  private queue: { k: number; start: number; end: number }[] = [];

  /** `titles`: read when a citation is reported, so a caller may add to it as sources arrive. */
  constructor(
    private readonly style: CitationStyle,
    private readonly titles: Map<string, string> = new Map(),
  ) {}

  /** The next token of the reply. */
  push(token: string): Released {
    this.raw += token;
    return this.release(false);
  }

  /** The reply's sources so far (the whole list: it only grows). */
  grow(sources: string[]): Released {
    this.sources = sources;
    return this.release(false);
  }

  /** The reply ended: everything still held. */
  end(): Released {
    return this.release(true);
  }

  private release(ended: boolean): Released {
    let text = "";
    let from = this.at;
    let i = this.at;
    while (i < this.raw.length) {
      if (this.raw.startsWith(FENCE, i)) {
        this.inFence = !this.inFence;
        i += FENCE.length;
        continue;
      }
      const c = this.raw[i];
      // Backticks at the end may be the start of a fence: wait for the next token.
      if (!ended && c === "`" && i + 2 >= this.raw.length && /^`{1,2}$/.test(this.raw.slice(i))) break;
      if (c === "[" && !this.inFence) {
        OPEN.lastIndex = i;
        const open = OPEN.exec(this.raw)!;
        if (open[2] && open[1]) {
          const k = Number(open[1]);
          const url = this.sources[k - 1];
          if (url === undefined && this.style === "links" && !ended) break;
          text += this.raw.slice(from, i);
          const written = url !== undefined && this.style === "links" ? `${open[0]}(${linkTarget(url)})` : open[0];
          const start = this.sentChars + text.length;
          if (url !== undefined || this.style === "markers") this.queue.push({ k, start, end: start + written.length });
          text += written;
          i += open[0].length;
          from = i;
          continue;
        }
        // `[12` at the end: a marker in progress.
        if (!ended && i + open[0].length === this.raw.length) break;
      }
      i++;
    }
    text += this.raw.slice(from, i);
    this.at = i;
    this.sentChars += text.length;
    return { text, citations: this.cited(ended) };
  }

  /** The citations sent and now known, in order; at the end, a marker never known is no citation. */
  private cited(ended: boolean): Citation[] {
    const out: Citation[] = [];
    while (this.queue.length) {
      const { k, start, end } = this.queue[0]!;
      const url = this.sources[k - 1];
      if (url === undefined && !ended) break;
      this.queue.shift();
      if (url !== undefined) out.push({ url, title: this.titles.get(url) ?? url, start, end });
    }
    return out;
  }
}

/**
 * Citation markers as every client can read them. By default each `[k]` naming a source becomes
 * a Markdown link `[k](url)`: clients that drop `url_citation` annotations (most chat UIs, the AI
 * SDK's compatible provider, LangChain) still render a link. `parley_citations: "markers"` keeps
 * the plain `[k]` Parley stores. Either way the annotations cover each marker exactly, over the
 * text the client receives. Fenced code is left alone: `a[1]` there is code, not a citation.
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

/**
 * The streamed text with links: the reply's sources come at its end (replies/run.ts), so a
 * marker's URL is unknown while it streams. Text streams as it comes until the first marker
 * outside code; from there it is held and sent, rewritten, once the sources are known. A
 * possible marker split across tokens (`[` then `2]`) is held only until it is one or is not.
 */
export class LinkHold {
  private raw = "";
  private sent = 0;
  private holding = false;
  private inFence = false;

  /** The part of the text so far that can be sent now. */
  push(token: string): string {
    this.raw += token;
    if (this.holding) return "";
    let i = this.sent;
    while (i < this.raw.length) {
      if (this.raw.startsWith(FENCE, i)) {
        this.inFence = !this.inFence;
        i += FENCE.length;
        continue;
      }
      const c = this.raw[i];
      // Backticks at the end may be the start of a fence: wait for the next token.
      if (c === "`" && /^`{1,2}$/.test(this.raw.slice(i))) break;
      if (c === "[" && !this.inFence) {
        const open = /^\[\d*(\])?/.exec(this.raw.slice(i))!;
        if (open[1] && open[0].length > 2) {
          this.holding = true;
          break;
        }
        // `[12` at the end: a marker in progress.
        if (i + open[0].length === this.raw.length) break;
      }
      i++;
    }
    const out = this.raw.slice(this.sent, i);
    this.sent = i;
    return out;
  }

  /** The rest of the final text (`text`: the whole reply as the client receives it). */
  end(text: string): string {
    return text.slice(this.sent);
  }
}

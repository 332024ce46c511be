/**
 * Markdown to a plain tree (strings and `{ tag, children }`), never to an HTML string: model text
 * only ever becomes text nodes, so `<script>` or `<img onerror>` in an answer render as the
 * characters they are. The tree is DOM-free (testable in Bun); dom.ts turns it into nodes. The
 * subset is what answers use: paragraphs, headings, lists (nested by indentation), quotes, rules,
 * fenced code, and inline code, bold, italic, links (http/https only) and citations `[n]`. An
 * unclosed fence or emphasis renders sensibly mid-stream, since the tree is rebuilt per token.
 */

export type MdNode = string | MdElement;

export interface MdElement {
  tag: "p" | "h3" | "h4" | "ul" | "ol" | "li" | "blockquote" | "hr" | "pre" | "code" | "strong" | "em" | "a";
  children: MdNode[];
  /** `a`: an http(s) URL, already checked. */
  href?: string;
  /** `a`: the citation's number when it stands for the reply's n-th source. */
  cite?: number;
  /** `ol`: its first number when not 1. */
  start?: number;
}

/** An absolute http(s) URL, normalised; anything else (javascript:, data:, relative) is refused. */
export function safeUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

// Underscore emphasis only at word boundaries (CommonMark): `snake_case_names` stay as written.
// A bare URL stops before trailing punctuation, so "see https://x.org." links without the dot.
const INLINE =
  /(`[^`]+`)|(\*\*[^*]+\*\*|__[^_]+__)|(\*[^*\s][^*]*\*|(?<!\w)_[^_\s][^_]*_(?!\w))|(\[[^\]]+\]\(<?[^)\s>]+>?\))|(\[\d{1,3}\])|(<?https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]]>?)/;

/** Inline Markdown of one block's text. */
export function parseInline(text: string, sources: string[] = []): MdNode[] {
  const out: MdNode[] = [];
  let rest = text;
  for (let m = INLINE.exec(rest); m; m = INLINE.exec(rest)) {
    if (m.index > 0) out.push(rest.slice(0, m.index));
    const [all] = m;
    if (m[1]) out.push({ tag: "code", children: [all.slice(1, -1)] });
    else if (m[2]) out.push({ tag: "strong", children: parseInline(all.slice(2, -2), sources) });
    else if (m[3]) out.push({ tag: "em", children: parseInline(all.slice(1, -1), sources) });
    else if (m[4]) {
      const close = all.indexOf("](");
      const href = safeUrl(all.slice(close + 2, -1).replace(/^<|>$/g, ""));
      const label = parseInline(all.slice(1, close), sources);
      out.push(...(href ? [{ tag: "a" as const, href, children: label }] : label));
    } else if (m[5]) {
      const n = Number(all.slice(1, -1));
      const href = sources[n - 1] && safeUrl(sources[n - 1]!);
      out.push(href ? { tag: "a", href, cite: n, children: [all] } : all);
    } else {
      const url = all.replace(/^<|>$/g, "");
      const href = safeUrl(url);
      out.push(href ? { tag: "a", href, children: [url] } : all);
    }
    rest = rest.slice(m.index + all.length);
  }
  if (rest) out.push(rest);
  return merge(out);
}

/** Adjacent strings joined (a refused link's label next to its text, say). */
function merge(nodes: MdNode[]): MdNode[] {
  const out: MdNode[] = [];
  for (const n of nodes) {
    const last = out.length - 1;
    if (typeof n === "string" && typeof out[last] === "string") out[last] += n;
    else out.push(n);
  }
  return out;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

const indent = (line: string) => /^\s*/.exec(line)![0].length;
const blank = (line: string | undefined) => line === undefined || line.trim() === "";
const startsBlock = (line: string) =>
  FENCE.test(line) || HEADING.test(line) || RULE.test(line) || ITEM.test(line) || QUOTE.test(line);

/** The blocks of a whole answer; `sources` resolve the citations `[n]`. */
export function parseMarkdown(text: string, sources: string[] = []): MdElement[] {
  return blocks(text.replace(/\r\n?/g, "\n").split("\n"), sources);
}

function blocks(lines: string[], sources: string[]): MdElement[] {
  const out: MdElement[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    const heading = HEADING.exec(line);
    if (blank(line)) i++;
    else if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      // Up to the closing fence, or the end of the text (a reply still streaming its code).
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(marker); i++) body.push(lines[i]!);
      i++;
      out.push({ tag: "pre", children: [{ tag: "code", children: [body.join("\n")] }] });
    } else if (heading) {
      // The panel's title is the h2: an answer's headings sit below it.
      out.push({ tag: heading[1]!.length <= 2 ? "h3" : "h4", children: parseInline(heading[2]!, sources) });
      i++;
    } else if (RULE.test(line)) {
      out.push({ tag: "hr", children: [] });
      i++;
    } else if (QUOTE.test(line)) {
      const body: string[] = [];
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) body.push(QUOTE.exec(lines[i]!)![1]!);
      out.push({ tag: "blockquote", children: blocks(body, sources) });
    } else if (ITEM.test(line)) {
      i = list(lines, i, out, sources);
    } else {
      const body: string[] = [];
      for (; i < lines.length && !blank(lines[i]) && (body.length === 0 || !startsBlock(lines[i]!)); i++)
        body.push(lines[i]!.trim());
      out.push({ tag: "p", children: parseInline(body.join(" "), sources) });
    }
  }
  return out;
}

/** One list from line `i` (its items' nested blocks by indentation); returns the next line's index. */
function list(lines: string[], i: number, out: MdElement[], sources: string[]): number {
  const first = ITEM.exec(lines[i]!)!;
  const base = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const items: string[][] = [];
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const m = ITEM.exec(line);
    if (blank(line)) {
      // A blank line ends the list unless the list (or the item) goes on after it.
      const next = lines[i + 1];
      if (blank(next) || (indent(next!) <= base && !ITEM.test(next!))) break;
      items[items.length - 1]!.push("");
    } else if (m && m[1]!.length <= base + 1) {
      if (/\d/.test(m[2]!) !== ordered) break;
      items.push([m[3]!]);
    } else if (indent(line) > base) {
      items[items.length - 1]!.push(line.slice(Math.min(indent(line), base + 2)));
    } else if (!startsBlock(line) && !blank(lines[i - 1])) {
      items[items.length - 1]!.push(line.trim()); // a lazy continuation of the item's paragraph
    } else break;
  }
  const li = items.map((body): MdElement => {
    const kids = blocks(body, sources);
    // A tight item's first paragraph is the item's text, not a <p> of its own.
    const [head, ...tail] = kids;
    return { tag: "li", children: head?.tag === "p" ? [...head.children, ...tail] : kids };
  });
  const start = ordered ? Number.parseInt(first[2]!, 10) : 1;
  out.push({ tag: ordered ? "ol" : "ul", children: li, ...(start !== 1 ? { start } : {}) });
  return i;
}

/** The plain text of a tree (what the copy button and the announcement read). */
export function textOf(nodes: MdNode[]): string {
  return nodes.map((n) => (typeof n === "string" ? n : textOf(n.children))).join("");
}

/**
 * Splits a markdown document into passages: one per heading section, long sections cut at
 * paragraph boundaries. A passage is what search ranks and what the agent quotes from.
 */
import { longerThan, MAX_TITLE_CHARS } from "./limits.ts";

/** One retrievable passage of a document. */
export interface Passage {
  heading: string;
  content: string;
}

const MAX_PASSAGE_CHARS = 1_500;
/** A line that opens or closes a fenced code block; its group is the fence itself. */
const FENCE_LINE = /^\s*(`{3,}|~{3,})/;

export function splitIntoPassages(title: string, markdown: string): Passage[] {
  const sections: Passage[] = [];
  let heading = title;
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = lines.join("\n").trim();
    if (text) sections.push({ heading, content: text });
    lines = [];
  };
  for (const line of markdown.split("\n")) {
    if (FENCE_LINE.test(line)) inFence = !inFence;
    const h = inFence ? undefined : headingOf(line);
    if (h !== undefined) {
      flush();
      heading = h;
    } else {
      lines.push(line);
    }
  }
  flush();
  return sections.flatMap((s) => cut(s));
}

/**
 * A document's title from its text: the first `#` heading, else the first heading of any level
 * (a page that starts at `##`), never a line inside a code block (a shell comment is no title).
 */
export function firstHeading(markdown: string): string | undefined {
  let inFence = false;
  let first: string | undefined;
  for (const line of markdown.split("\n")) {
    if (FENCE_LINE.test(line)) inFence = !inFence;
    const h = inFence ? undefined : headingOf(line);
    if (h === undefined) continue;
    if (/^#\s/.test(line)) return h;
    first ??= h;
  }
  return first;
}

/**
 * The text of an ATX heading line (`## Title`, `## Title ##`), or undefined. Linear in the line:
 * the pattern it replaces (`\s*#*\s*$` after a lazy group) backtracked cubically, minutes for
 * one line of 10,000 spaces. Every passage of a section carries its heading, so a heading
 * longer than a title may be is kept as text: no line is repeated into each of many passages.
 */
function headingOf(line: string): string | undefined {
  const m = /^#{1,6}\s+([\s\S]*)$/.exec(line);
  if (!m) return undefined;
  let text = m[1]!.trimEnd();
  // A closing sequence: hashes at the end, after whitespace (`# C#` keeps its hash).
  const closing = /(?:^|\s)#+$/.exec(text);
  if (closing) text = text.slice(0, closing.index).trimEnd();
  return text && !longerThan(text, MAX_TITLE_CHARS) ? text : undefined;
}

/**
 * A long section cut at paragraphs. A blank line inside a code block is a paragraph break too:
 * a cut there closes the block with its fence and opens the next passage with the block's own
 * fence line, so every passage's fences pair up (a passage opening with the end of a code block
 * read it as the start of one, and quoted the prose after it as code).
 */
function cut(section: Passage): Passage[] {
  if (section.content.length <= MAX_PASSAGE_CHARS) return [section];
  const out: Passage[] = [];
  let current = "";
  let opening: string | undefined; // the fence line of the code block the text is inside, if any
  for (const para of section.content.split(/\n{2,}/)) {
    if (current && current.length + para.length > MAX_PASSAGE_CHARS) {
      const close = opening ? `\n${FENCE_LINE.exec(opening)![1]}` : "";
      out.push({ heading: section.heading, content: `${current.trim()}${close}` });
      current = opening ? `${opening.trim()}\n` : "";
    }
    current += `${para}\n\n`;
    for (const line of para.split("\n")) if (FENCE_LINE.test(line)) opening = opening ? undefined : line;
  }
  if (current.trim()) out.push({ heading: section.heading, content: current.trim() });
  return out;
}

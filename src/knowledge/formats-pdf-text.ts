/**
 * A PDF's text as Markdown (formats-pdf.ts reads the PDF): the lines of each page from pdf.js's
 * text items, grouped into paragraphs, cut into sections at the outline's entries — an entry's
 * section starts where its destination is (its page, and how far down the page), so two
 * entries on one page split it. Pure: it sees plain data, so it is tested without pdf.js.
 */

/** A text item as pdf.js gives it, reduced to what is read here. */
export interface TextItem {
  str: string;
  /** The baseline, in PDF points from the page's bottom. */
  y: number;
  height: number;
  hasEOL: boolean;
}

/** An outline entry whose destination is known: its page (0-based) and top (null: the page's top). */
export interface Heading {
  title: string;
  /** 1 for a top-level entry, 2 for its children, … (a Markdown heading level, at most 6). */
  level: number;
  page: number;
  top: number | null;
}

/** A line of text, where it sits and how tall its text is. */
interface Line {
  text: string;
  y: number;
  height: number;
}

/**
 * Passages are cut at blank lines (chunk.ts): a paragraph ends where the gap to the next line
 * is over PARAGRAPH_GAP line heights, and a long one at a line ending a sentence past
 * SOFT_PARAGRAPH_CHARS, or at any line past HARD_PARAGRAPH_CHARS (a page of unspaced lines).
 */
const PARAGRAPH_GAP = 1.8;
const SOFT_PARAGRAPH_CHARS = 800;
const HARD_PARAGRAPH_CHARS = 1_200;

/**
 * Markdown that would change the passages: a text line that starts with `#` would be a heading,
 * one that starts with a code fence would hide the lines after it.
 */
const escapeLine = (line: string) => line.replace(/^(#|```|~~~)/, "\\$1");

const tidy = (line: string) => line.replace(/\s+/g, " ").trim();

/**
 * Lines of text from items in content order: a new line at pdf.js's end-of-line marks and where
 * the baseline moves by more than half the text's height (items it did not mark).
 */
export class LineBuilder {
  private lines: Line[] = [];
  private current = "";
  private y = 0;
  private height = 0;
  private lastY: number | null = null;

  add(item: TextItem) {
    const moved = this.lastY !== null && Math.abs(item.y - this.lastY) > Math.max(item.height, 1) / 2;
    if (moved && item.str.trim()) this.break();
    if (item.str.trim()) {
      if (!this.current.trim()) [this.y, this.height] = [item.y, 0];
      this.height = Math.max(this.height, item.height);
      this.lastY = item.y;
    }
    this.current += item.str;
    if (item.hasEOL) this.break();
  }

  private break() {
    const text = tidy(this.current);
    if (text) this.lines.push({ text, y: this.y, height: this.height });
    this.current = "";
  }

  /** The lines so far (the current one ended), and a fresh start. */
  take(): Line[] {
    this.break();
    const lines = this.lines;
    this.lines = [];
    this.lastY = null;
    return lines;
  }
}

/** Lines (of one page, top down) as paragraphs: blank lines between, escaped as text. */
function paragraphs(lines: Line[]): string {
  let out = "";
  let size = 0;
  lines.forEach((line, i) => {
    const prev = lines[i - 1];
    const gap = prev ? prev.y - line.y : 0;
    const spaced = prev && gap > PARAGRAPH_GAP * Math.max(prev.height, line.height, 1);
    const long = size > HARD_PARAGRAPH_CHARS || (size > SOFT_PARAGRAPH_CHARS && /[.!?:;]["')\]]?$/.test(prev!.text));
    const sep = !prev ? "" : spaced || long ? "\n\n" : "\n";
    if (sep === "\n\n") size = 0;
    out += sep + escapeLine(line.text);
    size += line.text.length + 1;
  });
  return out;
}

/** The lines of each page from its items. */
const pageLines = (items: TextItem[]): Line[] => {
  const b = new LineBuilder();
  for (const item of items) b.add(item);
  return b.take();
};

/** Page N's text as `## Page N` sections, empty pages left out (a PDF without an outline). */
export function pagesMarkdown(pages: TextItem[][]): string {
  return pages
    .map((items, i) => {
      const text = paragraphs(pageLines(items));
      return text ? `## Page ${i + 1}\n\n${text}` : "";
    })
    .filter(Boolean)
    .join("\n\n");
}

/**
 * The text cut at the outline's headings. An item belongs to the lowest heading on its page
 * whose top is at or above it; an item above every heading of its page continues the section
 * before (the text before the first heading is a preamble, without a heading). A section's
 * first line is dropped when it repeats its heading (the title printed on the page). Each
 * page's part of a section is its own paragraphs.
 */
export function outlineMarkdown(pages: TextItem[][], headings: Heading[]): string {
  // Document order: by page, then top down; entries at one place keep the outline's order.
  const sorted = headings
    .map((h, i) => ({ h, i }))
    .sort((a, b) => a.h.page - b.h.page || (b.h.top ?? Infinity) - (a.h.top ?? Infinity) || a.i - b.i)
    .map(({ h }) => h);
  const sections: { heading?: Heading; parts: Line[][] }[] = [{ parts: [] }];
  const byPage = new Map<number, number[]>();
  sorted.forEach((h, i) => {
    sections.push({ heading: h, parts: [] });
    byPage.set(h.page, [...(byPage.get(h.page) ?? []), i + 1]);
  });
  let open = 0; // the section text goes to when it is above every heading of its page
  const lines = new LineBuilder();
  const flush = (at: number) => {
    const part = lines.take();
    if (part.length) sections[at]!.parts.push(part);
  };
  pages.forEach((items, page) => {
    const here = byPage.get(page) ?? [];
    let at = open;
    for (const item of items) {
      // The lowest heading at or above the item: the last of `here` (top down) whose top is ≥ y.
      let to = open;
      for (const s of here) if ((sections[s]!.heading!.top ?? Infinity) >= item.y) to = s;
      if (to !== at) {
        flush(at);
        at = to;
      }
      lines.add(item);
    }
    flush(at);
    open = here.length ? here.at(-1)! : open;
  });
  return sections
    .map(({ heading, parts }) => {
      const first = parts[0]?.[0];
      if (heading && first && first.text.toLowerCase() === heading.title.toLowerCase()) parts[0]!.shift();
      const text = parts.map(paragraphs).filter(Boolean).join("\n\n");
      if (!heading) return text;
      return `${"#".repeat(Math.min(heading.level, 6))} ${heading.title}${text ? `\n\n${text}` : ""}`;
    })
    .filter(Boolean)
    .join("\n\n");
}

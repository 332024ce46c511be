/**
 * A PDF's text as Markdown (formats-pdf.ts reads the PDF): the lines of each page from pdf.js's
 * text items, cut into sections at the outline's entries — an entry's section starts where its
 * destination is (its page, and how far down the page), so two entries on one page split it.
 * Pure: it sees plain data, so it is tested without pdf.js.
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
  private lines: string[] = [];
  private current = "";
  private lastY: number | null = null;

  add(item: TextItem) {
    const moved = this.lastY !== null && Math.abs(item.y - this.lastY) > Math.max(item.height, 1) / 2;
    if (moved && item.str.trim()) this.break();
    this.current += item.str;
    if (item.str.trim()) this.lastY = item.y;
    if (item.hasEOL) this.break();
  }

  break() {
    const line = tidy(this.current);
    if (line) this.lines.push(line);
    this.current = "";
  }

  /** The lines so far (the current one ended), and a fresh start. */
  take(): string[] {
    this.break();
    const lines = this.lines;
    this.lines = [];
    this.lastY = null;
    return lines;
  }
}

/** Page N's text as `## Page N` sections, empty pages left out (a PDF without an outline). */
export function pagesMarkdown(pages: string[][]): string {
  return pages
    .map((lines, i) => (lines.length ? `## Page ${i + 1}\n\n${lines.map(escapeLine).join("\n")}` : ""))
    .filter(Boolean)
    .join("\n\n");
}

/**
 * The text cut at the outline's headings. An item belongs to the lowest heading on its page
 * whose top is at or above it; an item above every heading of its page continues the section
 * before (the text before the first heading is a preamble, without a heading). A section's
 * first line is dropped when it repeats its heading (the title printed on the page).
 */
export function outlineMarkdown(pages: TextItem[][], headings: Heading[]): string {
  // Document order: by page, then top down; entries at one place keep the outline's order.
  const sorted = headings
    .map((h, i) => ({ h, i }))
    .sort((a, b) => a.h.page - b.h.page || (b.h.top ?? Infinity) - (a.h.top ?? Infinity) || a.i - b.i)
    .map(({ h }) => h);
  const sections: { heading?: Heading; lines: string[] }[] = [{ lines: [] }];
  const byPage = new Map<number, number[]>();
  sorted.forEach((h, i) => {
    sections.push({ heading: h, lines: [] });
    byPage.set(h.page, [...(byPage.get(h.page) ?? []), i + 1]);
  });
  let open = 0; // the section text goes to when it is above every heading of its page
  const lines = new LineBuilder();
  pages.forEach((items, page) => {
    const here = byPage.get(page) ?? [];
    let at = open;
    for (const item of items) {
      // The lowest heading at or above the item: the last of `here` (top down) whose top is ≥ y.
      let to = open;
      for (const s of here) if ((sections[s]!.heading!.top ?? Infinity) >= item.y) to = s;
      if (to !== at) {
        sections[at]!.lines.push(...lines.take());
        at = to;
      }
      lines.add(item);
    }
    sections[at]!.lines.push(...lines.take());
    open = here.length ? here.at(-1)! : open;
  });
  return sections
    .map(({ heading, lines }) => {
      const body = lines.slice(heading && tidy(lines[0] ?? "").toLowerCase() === heading.title.toLowerCase() ? 1 : 0);
      const text = body.map(escapeLine).join("\n");
      if (!heading) return text;
      return `${"#".repeat(Math.min(heading.level, 6))} ${heading.title}${text ? `\n\n${text}` : ""}`;
    })
    .filter(Boolean)
    .join("\n\n");
}

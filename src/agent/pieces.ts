/**
 * A passage cut into what the default agent (retrieval.ts) may quote: prose paragraphs into
 * sentences (`Intl.Segmenter`: every script), lists, tables and fenced code blocks kept whole.
 */

/** One quotable piece of a passage: a sentence of prose, or a fenced code block kept whole. */
export interface Piece {
  text: string;
  code: boolean;
  /** Index of the block (paragraph or code block) it belongs to, within its passage. */
  block: number;
  /** A table, kept whole: it joins a quote, and opens none (it holds too many words to compare). */
  table?: true;
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s/;
const TABLE_ROW = /^\|/;
/** A longer table is a reference, not an answer: it is not quoted. */
const MAX_TABLE_CHARS = 1_500;
const FENCE = /^(```|~~~)[^\n]*\n[\s\S]*?\n\1[ \t]*$/gm;

const sentences = new Intl.Segmenter(undefined, { granularity: "sentence" });

/** The sentences of a flattened paragraph; a break inside `inline code` ("`?pretty`") is no break. */
function sentencesOf(flat: string): string[] {
  const out: string[] = [];
  for (const s of sentences.segment(flat)) {
    const open = out.length > 0 && (out[out.length - 1]!.match(/`/g)?.length ?? 0) % 2 === 1;
    if (open) out[out.length - 1] += s.segment;
    else out.push(s.segment);
  }
  return out.map((x) => x.trim()).filter(Boolean);
}

/** A passage cut into pieces: fenced code blocks whole, prose paragraphs into sentences. */
export function piecesOf(content: string): Piece[] {
  const pieces: Piece[] = [];
  let block = 0;
  let at = 0;
  const prose = (text: string) => {
    for (const paragraph of text.split(/\n{2,}/)) {
      // Blank text around a code block is no block: blocks next to each other are neighbours.
      if (!paragraph.trim()) continue;
      // A list keeps its lines (one piece); the sentences before it are sentences.
      const lines = paragraph.split("\n");
      const list = lines.findIndex((l) => LIST_ITEM.test(l));
      const lead = (list < 0 ? lines : lines.slice(0, list)).join(" ").replace(/\s+/g, " ").trim();
      // A table is quoted whole, like a list: prices and limits are often written in one. HTML
      // and stray import lines (from MDX pages) are not prose.
      if (TABLE_ROW.test(lead)) {
        const table = paragraph.trim();
        if (table.length <= MAX_TABLE_CHARS) pieces.push({ text: table, code: false, block: block++, table: true });
        continue;
      }
      if (/^(<|import |export )/.test(lead)) continue;
      if (lead.length >= 3) for (const text of sentencesOf(lead)) pieces.push({ text, code: false, block });
      if (list >= 0) pieces.push({ text: lines.slice(list).join("\n").trim(), code: false, block });
      block++;
    }
  };
  for (const m of content.matchAll(FENCE)) {
    prose(content.slice(at, m.index));
    pieces.push({ text: m[0].trim(), code: true, block: block++ });
    at = m.index + m[0].length;
  }
  prose(content.slice(at));
  return pieces;
}

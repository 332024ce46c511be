/**
 * Splits a markdown document into passages: one per heading section, long sections cut at
 * paragraph boundaries. A passage is what search ranks and what the agent quotes from.
 */

/** One retrievable passage of a document. */
export interface Passage {
  heading: string;
  content: string;
}

const MAX_PASSAGE_CHARS = 1_500;

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
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const h = !inFence && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      heading = h[1]!;
    } else {
      lines.push(line);
    }
  }
  flush();
  return sections.flatMap((s) => cut(s));
}

function cut(section: Passage): Passage[] {
  if (section.content.length <= MAX_PASSAGE_CHARS) return [section];
  const out: Passage[] = [];
  let current = "";
  for (const para of section.content.split(/\n{2,}/)) {
    if (current && current.length + para.length > MAX_PASSAGE_CHARS) {
      out.push({ heading: section.heading, content: current.trim() });
      current = "";
    }
    current += `${para}\n\n`;
  }
  if (current.trim()) out.push({ heading: section.heading, content: current.trim() });
  return out;
}

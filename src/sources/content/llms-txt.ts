/**
 * llms.txt (llmstxt.org) → the URLs it lists. The format is Markdown: an `#` title, a `>`
 * summary, then `##` sections of list items `- [title](url): notes`. A section named
 * "Optional" holds pages a reader may skip; it is flagged so a crawl can choose.
 */

/** One link of an llms.txt file. */
export interface LlmsTxtLink {
  url: string;
  title: string;
  notes?: string;
  /** The `##` section it is listed under ("" before the first). */
  section: string;
  /** Listed under `## Optional`. */
  optional: boolean;
}

/** `- [title](url)` or `* [title](url): notes`, the URL possibly in angle brackets. */
const LINK_ITEM = /^\s*[-*+]\s+\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)\s*(?::\s*(.*))?$/;
const SECTION = /^##\s+(.+?)\s*#*\s*$/;

/**
 * The links of an llms.txt file, in order, resolved against the file's own URL (relative links
 * are allowed) and kept only when http(s). Duplicates keep their first listing.
 */
export function parseLlmsTxt(text: string, fileUrl: string): LlmsTxtLink[] {
  const out: LlmsTxtLink[] = [];
  const seen = new Set<string>();
  let section = "";
  let inFence = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = SECTION.exec(line);
    if (heading) {
      section = heading[1]!;
      continue;
    }
    const item = LINK_ITEM.exec(line);
    if (!item) continue;
    let url: URL;
    try {
      url = new URL(item[2]!, fileUrl);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    const notes = item[3]?.trim();
    out.push({
      url: url.href,
      title: item[1]!.trim(),
      ...(notes ? { notes } : {}),
      section,
      optional: section.toLowerCase() === "optional",
    });
  }
  return out;
}

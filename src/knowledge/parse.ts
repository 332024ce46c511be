/**
 * Parses knowledge-base files into documents: `.jsonl` (one {"url","title","content"} per
 * line) and markdown/text with `url:` (and optionally `title:`) in front matter. Bad lines are
 * reported with file:line and skipped; the rest load.
 */

/** A document to ingest. */
export interface KnowledgeDoc {
  url: string;
  title: string;
  content: string;
}

/** A line or file that could not be loaded, and why. */
export interface ParseProblem {
  where: string;
  reason: string;
}

const isUrl = (v: unknown): v is string => {
  if (typeof v !== "string") return false;
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
};

export function parseJsonl(text: string, file: string): { docs: KnowledgeDoc[]; problems: ParseProblem[] } {
  const docs: KnowledgeDoc[] = [];
  const problems: ParseProblem[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${file}:${i + 1}`;
    let v: { url?: unknown; title?: unknown; content?: unknown };
    try {
      v = JSON.parse(line);
    } catch (e) {
      problems.push({ where, reason: `not JSON (${(e as Error).message})` });
      return;
    }
    if (!v || typeof v !== "object") return void problems.push({ where, reason: "not a JSON object" });
    if (!isUrl(v.url)) return void problems.push({ where, reason: "`url` must be an http(s) URL" });
    if (typeof v.content !== "string" || !v.content.trim()) {
      return void problems.push({ where, reason: "`content` must be a non-empty string" });
    }
    const title = typeof v.title === "string" && v.title.trim() ? v.title.trim() : v.url;
    docs.push({ url: v.url, title, content: v.content });
  });
  return { docs, problems };
}

/** Markdown or text with front matter: `---\nurl: https://…\ntitle: …\n---`. */
export function parseMarkdown(text: string, file: string): { doc?: KnowledgeDoc; problem?: ParseProblem } {
  const fm = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  const fields = new Map<string, string>();
  for (const line of fm?.[1]?.split(/\r?\n/) ?? []) {
    const kv = /^(\w+):\s*(.*?)\s*$/.exec(line);
    if (kv) fields.set(kv[1]!.toLowerCase(), kv[2]!.replace(/^(["'])(.*)\1$/, "$2"));
  }
  const url = fields.get("url");
  if (!isUrl(url)) return { problem: { where: `${file}:1`, reason: "front matter needs `url: https://…`" } };
  const content = fm ? text.slice(fm[0].length) : text;
  if (!content.trim()) return { problem: { where: file, reason: "empty document" } };
  const title = fields.get("title") || /^#\s+(.+)$/m.exec(content)?.[1]?.trim() || url;
  return { doc: { url, title, content } };
}

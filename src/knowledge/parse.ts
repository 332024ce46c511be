/**
 * Parses knowledge-base files into documents: `.jsonl` (one {"url","title","content"} per
 * line) and markdown/text with `url:` (and optionally `title:`) in front matter. Bad lines are
 * reported with file:line and skipped; the rest load.
 */
import { isLanguage, LANGUAGES, type Language } from "./language.ts";

/** A document to ingest. */
export interface KnowledgeDoc {
  url: string;
  title: string;
  content: string;
  /** The document's language (knowledge/language.ts); detected from its text when absent. */
  language?: Language;
}

/** A line or file that could not be loaded, and why. */
export interface ParseProblem {
  where: string;
  reason: string;
}

/**
 * The URL in its canonical form (`new URL(v).href`: spaces and non-ASCII percent-encoded), so
 * every source we report is a valid URI; or why it cannot be a source. A URL with credentials
 * (`https://user:pass@…`) is refused: sources are shown to every key's users.
 */
function canonicalUrl(v: unknown): { url: string } | { reason: string } {
  const notHttp = { reason: "`url` must be an http(s) URL" };
  if (typeof v !== "string" || v.includes("\0")) return notHttp;
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    return notHttp;
  }
  if (!/^https?:$/.test(url.protocol)) return notHttp;
  if (url.username || url.password) return { reason: "`url` must not carry credentials (user:password@)" };
  return { url: url.href };
}

// PostgreSQL text cannot hold NUL; a document carrying one is a bad line, not a failed ingest.
const hasNul = (s: string) => s.includes("\0");

export function parseJsonl(text: string, file: string): { docs: KnowledgeDoc[]; problems: ParseProblem[] } {
  const docs: KnowledgeDoc[] = [];
  const problems: ParseProblem[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const problem = (reason: string) => problems.push({ where: `${file}:${i + 1}`, reason });
    let v: { url?: unknown; title?: unknown; content?: unknown; language?: unknown };
    try {
      v = JSON.parse(line);
    } catch (e) {
      problem(`not JSON (${(e as Error).message})`);
      continue;
    }
    if (!v || typeof v !== "object") {
      problem("not a JSON object");
      continue;
    }
    const checked = canonicalUrl(v.url);
    if ("reason" in checked) {
      problem(checked.reason);
      continue;
    }
    const url = checked.url;
    if (typeof v.content !== "string" || !v.content.trim()) {
      problem("`content` must be a non-empty string");
      continue;
    }
    const title = typeof v.title === "string" && v.title.trim() ? v.title.trim() : url;
    if (hasNul(v.content) || hasNul(title)) {
      problem("contains a NUL character");
      continue;
    }
    if (v.language !== undefined && v.language !== null && !isLanguage(v.language)) {
      problem(`\`language\` must be one of ${LANGUAGES.join(", ")}`);
      continue;
    }
    docs.push({ url, title, content: v.content, ...(v.language ? { language: v.language } : {}) });
  }
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
  const raw = fields.get("url");
  const checked = canonicalUrl(raw);
  if ("reason" in checked) {
    return {
      problem: {
        where: `${file}:1`,
        reason: raw === undefined ? "front matter needs `url: https://…`" : checked.reason,
      },
    };
  }
  const url = checked.url;
  const content = fm ? text.slice(fm[0].length) : text;
  if (!content.trim()) return { problem: { where: file, reason: "empty document" } };
  const title = fields.get("title") || /^#\s+(.+)$/m.exec(content)?.[1]?.trim() || url;
  if (hasNul(text)) return { problem: { where: file, reason: "contains a NUL character" } };
  const language = fields.get("language");
  if (language !== undefined && !isLanguage(language))
    return { problem: { where: `${file}:1`, reason: `\`language\` must be one of ${LANGUAGES.join(", ")}` } };
  return { doc: { url, title, content, ...(language ? { language } : {}) } };
}

/**
 * Parses knowledge-base input into documents — the one set of rules for the CLI's files and the
 * HTTP uploads: a JSON document (`{url, title?, content, format?, metadata?}`: one upload, one
 * ndjson or `.jsonl` line), Markdown/text with front matter (YAML or TOML: `url`, `title`, the
 * rest kept as metadata), and HTML (to text, see formats.ts). A bad line or file is reported
 * (where, why, which field) and skipped; the rest load.
 */

import type { DocumentFormat } from "../contract/knowledge.ts";
import { firstHeading } from "./chunk.ts";
import { DEFAULT_URL_STYLE, docsUrl, type UrlStyle } from "./docs-url.ts";
import { FrontMatterError, frontMatter, HtmlError, htmlToDocument } from "./formats.ts";
import { isLanguage, LANGUAGES, type Language } from "./language.ts";
import { checkMetadata, titleProblem } from "./limits.ts";

/** A document to ingest. */
export interface KnowledgeDoc {
  url: string;
  title: string;
  content: string;
  /** The document's language (knowledge/language.ts); detected from its text when absent. */
  language?: Language;
  /** A JSON object kept with the document (front matter, the upload's `metadata`). */
  metadata?: Record<string, unknown>;
}

/** A line or file that could not be loaded, and why (`param`: the field at fault, if one is). */
export interface ParseProblem {
  where: string;
  reason: string;
  param?: string;
  /** Set when the document is over the size limit (HTTP: 413 `payload_too_large`). */
  tooLarge?: boolean;
}

/** Largest `content` accepted by default, in UTF-8 bytes (MAX_DOCUMENT_BYTES). */
export const DEFAULT_MAX_DOCUMENT_BYTES = 1024 * 1024;

/**
 * The URL in its canonical form (`new URL(v).href`: spaces and non-ASCII percent-encoded), so
 * every source we report is a valid URI; or why it cannot be a source. A URL with credentials
 * (`https://user:pass@…`) is refused: sources are shown to every key's users.
 */
export function canonicalUrl(v: unknown): { url: string } | { reason: string } {
  const notHttp = { reason: "`url` must be an absolute http(s) URL" };
  if (typeof v !== "string" || v.includes("\0") || v.length > 2048) return notHttp;
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
const bytesOf = (s: string) => new TextEncoder().encode(s).byteLength;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Rules shared by every input: the size limit. */
export interface ParseRules {
  maxBytes?: number;
}

type Checked = { doc: KnowledgeDoc } | { problem: Omit<ParseProblem, "where"> };

/**
 * Validates one document given as fields (JSON upload, ndjson or .jsonl line, parsed file):
 * `content` within MAX_DOCUMENT_BYTES (413), `title` and `metadata` within limits.ts (400).
 */
export function checkDocument(
  v: { url?: unknown; title?: unknown; content?: unknown; format?: unknown; metadata?: unknown; language?: unknown },
  { maxBytes = DEFAULT_MAX_DOCUMENT_BYTES }: ParseRules = {},
): Checked {
  const fail = (param: string, reason: string, tooLarge = false) => ({ problem: { param, reason, tooLarge } });
  const checked = canonicalUrl(v.url);
  if ("reason" in checked) return fail("url", checked.reason);
  if (typeof v.content !== "string" || !v.content.trim())
    return fail("content", "`content` must be a non-empty string");
  if (bytesOf(v.content) > maxBytes)
    return fail("content", `\`content\` is over MAX_DOCUMENT_BYTES (${maxBytes} bytes)`, true);
  if (v.title !== undefined && v.title !== null && typeof v.title !== "string")
    return fail("title", "`title` must be a string");
  if (v.format !== undefined && !["markdown", "text", "html"].includes(v.format as string))
    return fail("format", "`format` must be one of markdown, text, html");
  if (v.metadata !== undefined && v.metadata !== null && !isObject(v.metadata))
    return fail("metadata", "`metadata` must be a JSON object");
  if (v.language !== undefined && v.language !== null && !isLanguage(v.language))
    return fail("language", `\`language\` must be one of ${LANGUAGES.join(", ")}`);
  const metadata = isObject(v.metadata) ? v.metadata : {};
  const meta = checkMetadata(metadata);
  if ("reason" in meta) return fail("metadata", meta.reason);
  if (hasNul(meta.json)) return fail("metadata", "contains a NUL character");
  let content = v.content;
  let title = typeof v.title === "string" ? v.title.trim() : "";
  if (titleProblem(title)) return fail("title", titleProblem(title)!);
  if ((v.format as DocumentFormat | undefined) === "html") {
    const html = readHtml(content);
    if ("reason" in html) return fail("content", html.reason);
    content = html.text;
    title ||= html.title ?? "";
    if (titleProblem(title)) return fail("title", `${titleProblem(title)!} (the HTML <title>)`);
    if (!content.trim()) return fail("content", "the HTML has no text");
  }
  // A heading too long to be a title is text (chunk.ts); with no heading, the URL names the document.
  title ||= firstHeading(content) ?? checked.url;
  if (hasNul(content) || hasNul(title)) return fail("content", "contains a NUL character");
  const language = isLanguage(v.language) ? { language: v.language } : {};
  return { doc: { url: checked.url, title, content, metadata, ...language } };
}

/** An HTML page as text, or why it cannot be read (formats.ts). */
function readHtml(html: string): ReturnType<typeof htmlToDocument> | { reason: string } {
  try {
    return htmlToDocument(html);
  } catch (error) {
    if (error instanceof HtmlError) return { reason: error.message };
    throw error;
  }
}

/** One JSON line (ndjson body, .jsonl file) as a document, or the problem with it. */
export function parseJsonLine(line: string, rules?: ParseRules): Checked {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { problem: { reason: `not JSON (${(e as Error).message})` } };
  }
  if (!isObject(v)) return { problem: { reason: "not a JSON object" } };
  return checkDocument(v, rules);
}

export function parseJsonl(
  text: string,
  file: string,
  rules?: ParseRules,
): { docs: KnowledgeDoc[]; problems: ParseProblem[] } {
  const docs: KnowledgeDoc[] = [];
  const problems: ParseProblem[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    let r: Checked;
    try {
      r = parseJsonLine(line, rules);
    } catch (e) {
      // Whatever a line makes the parsers throw fails that line alone.
      r = { problem: { reason: `could not be read (${(e as Error).name}: ${(e as Error).message})` } };
    }
    if ("doc" in r) docs.push(r.doc);
    else problems.push({ where: `${file}:${i + 1}`, ...r.problem });
  }
  return { docs, problems };
}

/** Where a file's URL comes from when its front matter names none (docs-url.ts). */
export interface FileSource {
  /** The address of the folder the file is in, or of the folder a relative path starts from. */
  baseUrl?: string;
  /** The file's path under that folder (default: `file`). */
  relativePath?: string;
  urlStyle?: UrlStyle;
  /** What to tell the user to give when there is no URL: the caller's own name for the base URL. */
  baseUrlHint?: string;
}

/**
 * A Markdown, text or HTML file. The URL comes from front matter (`url:`), an HTML page's
 * canonical link, or else the address a docs site serves it at, `baseUrl` and its relative path
 * (docs-url.ts); the title from front matter, `<title>`, or the first heading. Other front matter
 * fields become metadata.
 */
export function parseFile(
  text: string,
  file: string,
  {
    baseUrl,
    relativePath,
    urlStyle = DEFAULT_URL_STYLE,
    baseUrlHint = "send a base_url",
    ...rules
  }: ParseRules & FileSource = {},
): { doc?: KnowledgeDoc; problem?: ParseProblem } {
  let fm: ReturnType<typeof frontMatter>;
  try {
    fm = frontMatter(text);
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    const param = error.param ? { param: error.param } : {};
    return { problem: { where: `${file}:1`, reason: error.message, ...param } };
  }
  const { url, title, language, ...metadata } = fm.fields;
  const html = /\.html?$/i.test(file);
  const page = html ? readHtml(fm.body) : null;
  if (page && "reason" in page) return { problem: { where: file, reason: page.reason, param: "content" } };
  let found = url ?? page?.url;
  if (found === undefined && baseUrl) {
    const r = docsUrl(baseUrl, relativePath ?? file, urlStyle);
    if ("reason" in r) return { problem: { where: file, reason: r.reason, param: "base_url" } };
    found = r.url;
  }
  if (found === undefined)
    return { problem: { where: `${file}:1`, reason: `front matter needs \`url: https://…\` (or ${baseUrlHint})` } };
  const r = checkDocument(
    { url: found, title: title ?? page?.title, content: page ? page.text : fm.body, metadata, language },
    rules,
  );
  if ("problem" in r) {
    const reason = r.problem.param === "content" && !r.problem.tooLarge ? "empty document" : r.problem.reason;
    const where = r.problem.param === "url" ? `${file}:1` : file;
    return { problem: { where, ...r.problem, reason: hasNul(text) ? "contains a NUL character" : reason } };
  }
  return { doc: r.doc };
}

/** Markdown or text with front matter (the CLI's `.md`/`.txt` files). */
export const parseMarkdown = (text: string, file: string, rules?: ParseRules) => parseFile(text, file, rules);

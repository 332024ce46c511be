/**
 * Files that are not text with front matter, read into documents for the uploads and the CLI:
 * a PDF (formats-pdf.ts: one document) and an OpenAPI spec in .json/.yaml/.yml
 * (formats-openapi.ts: one document per operation and an overview). Neither has front matter
 * to name its URL: it is the address the file is served at, `baseUrl` and its relative path
 * (docs-url.ts, as for a Markdown file without `url:`). What a file cannot give is reported as
 * ParseProblems (where, why), never thrown.
 */
import { DEFAULT_URL_STYLE, docsUrl } from "./docs-url.ts";
import { looksLikeOpenApi, OpenApiError, openApiToDocuments } from "./formats-openapi.ts";
import { PdfError, pdfToDocuments } from "./formats-pdf.ts";
import {
  checkDocument,
  DEFAULT_MAX_DOCUMENT_BYTES,
  type FileSource,
  type KnowledgeDoc,
  type ParseProblem,
  type ParseRules,
} from "./parse.ts";

export const PDF_EXTENSIONS = [".pdf"];
/** Read as OpenAPI when their text is an OpenAPI document (looksLikeOpenApi), else refused. */
export const OPENAPI_EXTENSIONS = [".json", ".yaml", ".yml"];
/** Largest OpenAPI file read: parsed whole, it makes many documents (each within MAX_DOCUMENT_BYTES). */
export const MAX_OPENAPI_BYTES = 8 * 1024 * 1024;

/** A file's documents and what could not be read of it (`url`: the document a problem is about). */
export interface Parsed {
  docs: KnowledgeDoc[];
  problems: (ParseProblem & { url?: string })[];
}

/** What a file is by its name's extension: `pdf`, `openapi`, or undefined (another kind). */
export function formatOf(file: string): "pdf" | "openapi" | undefined {
  const ext = /\.[^./\\]+$/.exec(file.toLowerCase())?.[0] ?? "";
  if (PDF_EXTENSIONS.includes(ext)) return "pdf";
  if (OPENAPI_EXTENSIONS.includes(ext)) return "openapi";
  return undefined;
}

type Options = ParseRules & FileSource;

/** The address `file` is served at, or the problem that it has none. */
function fileUrl(file: string, o: Options): { url: string } | { problem: ParseProblem } {
  if (!o.baseUrl)
    return {
      problem: {
        where: file,
        param: "base_url",
        reason: `a file without front matter needs its address (${o.baseUrlHint ?? "send a base_url"})`,
      },
    };
  const r = docsUrl(o.baseUrl, o.relativePath ?? file, o.urlStyle ?? DEFAULT_URL_STYLE);
  return "reason" in r ? { problem: { where: file, reason: r.reason, param: "base_url" } } : r;
}

/** A PDF as one document, its title the PDF's /Title (else the file's name). */
export async function parsePdf(bytes: Uint8Array, file: string, o: Options = {}): Promise<Parsed> {
  const at = fileUrl(file, o);
  if ("problem" in at) return { docs: [], problems: [at.problem] };
  let pdf: Awaited<ReturnType<typeof pdfToDocuments>>;
  try {
    // Text past the document limit fails the file anyway: stop reading there (a character is ≥ 1 byte).
    pdf = await pdfToDocuments(bytes, at.url, { maxChars: o.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES });
  } catch (error) {
    if (!(error instanceof PdfError)) throw error;
    // Too slow to read is too large for this server: the file is refused, not its syntax.
    const tooLarge = ["too_large", "too_many_pages", "too_slow"].includes(error.problem);
    return { docs: [], problems: [{ where: file, reason: error.message, param: "content", tooLarge }] };
  }
  const r = checkDocument({ url: at.url, title: pdf.title, content: pdf.markdown }, o);
  return "doc" in r ? { docs: [r.doc], problems: [] } : { docs: [], problems: [{ where: file, ...r.problem }] };
}

/**
 * An OpenAPI spec as documents: its overview at the file's address, each operation at that
 * address plus its anchor. A document that breaks a limit fails alone (`file#anchor`).
 */
export function parseOpenApi(text: string, file: string, o: Options = {}): Parsed {
  if (!looksLikeOpenApi(text))
    return {
      docs: [],
      problems: [
        { where: file, reason: "not an OpenAPI 3.x or Swagger 2.0 document (the only kind read from this file type)" },
      ],
    };
  const at = fileUrl(file, o);
  if ("problem" in at) return { docs: [], problems: [at.problem] };
  let made: ReturnType<typeof openApiToDocuments>;
  try {
    made = openApiToDocuments(text, at.url);
  } catch (error) {
    if (!(error instanceof OpenApiError)) throw error;
    return { docs: [], problems: [{ where: file, reason: error.message, param: "content" }] };
  }
  const out: Parsed = { docs: [], problems: [] };
  for (const d of made) {
    const r = checkDocument({ url: d.url, title: d.title, content: d.markdown, metadata: d.metadata }, o);
    if ("doc" in r) out.docs.push(r.doc);
    else out.problems.push({ where: `${file}${d.url.slice(at.url.length)}`, url: d.url, ...r.problem });
  }
  return out;
}

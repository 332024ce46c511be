/**
 * A PDF file as one Markdown document, for uploads, the CLI and web sources alike. The PDF is
 * read by `unpdf`'s serverless build of Mozilla's pdf.js (pure JS, no worker, no native code:
 * it runs under Bun, in the compiled binary and on Deno). With an outline (bookmarks), each entry
 * becomes a heading (`#` top level, `##` below, …) over the text from where it points; without
 * one, each page is a `## Page N` section. Anything wrong with the file is a PdfError saying
 * why; the pages and characters read are bounded, and no fonts, images or scripts are loaded.
 */
import { type Heading, outlineMarkdown, pagesMarkdown, type TextItem } from "./formats-pdf-text.ts";

/** Why a PDF could not be read (each a PdfError's `problem`). */
export type PdfProblem =
  | "not_pdf"
  | "encrypted"
  | "damaged"
  | "no_pages"
  | "too_many_pages"
  | "too_large"
  | "too_slow"
  | "no_text"
  | "unavailable";

/** A PDF that cannot become a document: `problem` says which way, the message says it to a person. */
export class PdfError extends Error {
  constructor(
    readonly problem: PdfProblem,
    message: string,
  ) {
    super(message);
    this.name = "PdfError";
  }
}

/** Bounds on one PDF: a file over them fails (PdfError), it is never cut short silently. */
export interface PdfLimits {
  /** Largest file, in bytes. */
  maxBytes?: number;
  /** Most pages. */
  maxPages?: number;
  /** Most characters of text; reading stops at the page that passes it. */
  maxChars?: number;
  /**
   * Longest reading, in milliseconds, checked between pages: pdf.js reads on this thread (its
   * serverless build has no worker), so a pathological file is stopped, not waited for.
   */
  maxMs?: number;
}

export const PDF_LIMITS: Required<PdfLimits> = {
  maxBytes: 64 * 1024 * 1024,
  maxPages: 2_000,
  maxChars: 4_000_000,
  maxMs: 60_000,
};

/** Deepest outline level read, and most entries: a deeper or longer outline is cut there. */
const MAX_OUTLINE_DEPTH = 6;
const MAX_OUTLINE_ENTRIES = 5_000;

/** What a PDF becomes: its title (the PDF's /Title, else its file name), Markdown and how it was cut. */
export interface PdfDocument {
  title: string;
  markdown: string;
  pages: number;
  /** Whether the headings come from the outline (else they are `## Page N`). */
  outline: boolean;
}

type PdfJs = typeof import("unpdf/pdfjs");
type Pdf = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;

let pdfjs: Promise<PdfJs> | undefined;
/** pdf.js, loaded on the first PDF (1.7 MB of code that most servers never need). */
async function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import("unpdf").then((m) => m.getResolvedPDFJS() as Promise<PdfJs>);
  try {
    return await pdfjs;
  } catch (error) {
    pdfjs = undefined;
    throw new PdfError("unavailable", `PDF reading is unavailable here (${(error as Error).message})`);
  }
}

/** A file starts with `%PDF-` (readers allow some bytes of junk before it: so does this, up to 1 KiB). */
const isPdf = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes.subarray(0, 1024)).includes("%PDF-");

/** pdf.js's own errors, by name, as PdfErrors; anything else is passed on. */
function asPdfError(error: unknown): unknown {
  const name = (error as { name?: string })?.name;
  if (name === "PasswordException")
    return new PdfError("encrypted", "the PDF is encrypted with a password: upload a copy without one");
  if (name === "InvalidPDFException" || name === "FormatError" || name === "UnknownErrorException")
    return new PdfError("damaged", `the PDF is damaged or truncated (${(error as Error).message})`);
  return error;
}

/** The page (0-based) and top an outline destination points to, or null when it points nowhere here. */
async function destination(pdf: Pdf, dest: unknown): Promise<{ page: number; top: number | null } | null> {
  const explicit = typeof dest === "string" ? await pdf.getDestination(dest).catch(() => null) : dest;
  if (!Array.isArray(explicit) || explicit.length === 0) return null;
  const [target, kind] = explicit as [unknown, { name?: string } | undefined];
  let page: number;
  if (typeof target === "number") page = target;
  else if (target && typeof target === "object" && "num" in target)
    page = await pdf.getPageIndex(target as { num: number; gen: number }).catch(() => -1);
  else return null;
  if (page < 0 || page >= pdf.numPages) return null;
  // /XYZ left top zoom, /FitH top, /FitBH top: the others show the whole page.
  const top = kind?.name === "XYZ" ? explicit[3] : kind?.name === "FitH" || kind?.name === "FitBH" ? explicit[2] : null;
  return { page, top: typeof top === "number" ? top : null };
}

type OutlineNode = { title: string; dest: unknown; items?: OutlineNode[] };

/** The outline's entries that point into this PDF, depth first (the outline's order), with their level. */
async function headings(pdf: Pdf): Promise<Heading[]> {
  const outline = ((await pdf.getOutline().catch(() => null)) ?? []) as OutlineNode[];
  const found: Heading[] = [];
  const stack = outline.map((node) => ({ node, level: 1 })).reverse();
  while (stack.length && found.length < MAX_OUTLINE_ENTRIES) {
    const { node, level } = stack.pop()!;
    const title = String(node.title ?? "")
      .replace(/\s+/g, " ")
      .trim();
    const at = await destination(pdf, node.dest);
    if (title && at) found.push({ title, level, ...at });
    if (level < MAX_OUTLINE_DEPTH)
      stack.push(...(node.items ?? []).map((child) => ({ node: child, level: level + 1 })).reverse());
  }
  return found;
}

/** The document's title: the PDF's /Title, else the file's name in its URL, else the URL. */
function titleOf(info: unknown, url: string): string {
  const own = (info as { Title?: unknown } | null)?.Title;
  if (typeof own === "string" && own.trim()) return own.replace(/\s+/g, " ").trim();
  const last = new URL(url).pathname.split("/").at(-1) ?? "";
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // A malformed escape: the name as it is written.
  }
  return name.replace(/\.pdf$/i, "").trim() || url;
}

/**
 * Reads `bytes` (a PDF served at `url`) into one document. Throws a PdfError when the file is
 * not a PDF, is damaged, truncated or encrypted, has no pages or no text (a scan: no OCR here),
 * or is over `limits`.
 */
export async function pdfToDocuments(bytes: Uint8Array, url: string, limits: PdfLimits = {}): Promise<PdfDocument> {
  const { maxBytes, maxPages, maxChars, maxMs } = { ...PDF_LIMITS, ...limits };
  const started = Date.now();
  if (bytes.byteLength > maxBytes) throw new PdfError("too_large", `the PDF is over ${maxBytes} bytes`);
  if (!isPdf(bytes)) throw new PdfError("not_pdf", "not a PDF (no %PDF- header)");
  const { getDocument } = await loadPdfJs();
  // A plain Uint8Array copy: pdf.js may take over (detach) the buffer it is given, and refuses
  // a Node Buffer (whose slice() would be a view, not a copy).
  const task = getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    // Text only: no wasm image decoders, fonts or canvases are fetched or made.
    useWasm: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
  });
  try {
    const pdf = await task.promise.catch((e) => Promise.reject(asPdfError(e)));
    if (pdf.numPages === 0) throw new PdfError("no_pages", "the PDF has no pages");
    if (pdf.numPages > maxPages) throw new PdfError("too_many_pages", `the PDF has over ${maxPages} pages`);
    const pages: TextItem[][] = [];
    let chars = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n).catch((e) => Promise.reject(asPdfError(e)));
      const content = await page.getTextContent().catch((e) => Promise.reject(asPdfError(e)));
      const items: TextItem[] = [];
      for (const item of content.items) {
        if (!("str" in item)) continue;
        items.push({ str: item.str, y: item.transform[5] ?? 0, height: item.height, hasEOL: item.hasEOL });
        chars += item.str.length;
      }
      page.cleanup();
      if (chars > maxChars) throw new PdfError("too_large", `the PDF has over ${maxChars} characters of text`);
      if (Date.now() - started >= maxMs)
        throw new PdfError("too_slow", `reading the PDF took over ${maxMs} ms (stopped at page ${n})`);
      pages.push(items);
    }
    if (!pages.some((items) => items.some((i) => i.str.trim())))
      throw new PdfError("no_text", "the PDF has no text (a scan? text in images is not read)");
    const title = titleOf((await pdf.getMetadata().catch(() => null))?.info, url);
    const found = await headings(pdf);
    if (found.length) return { title, markdown: outlineMarkdown(pages, found), pages: pages.length, outline: true };
    return { title, markdown: pagesMarkdown(pages), pages: pages.length, outline: false };
  } finally {
    await task.destroy().catch(() => {});
  }
}

/**
 * The file formats a sync stores besides HTML, read by knowledge/'s converters (the same ones
 * uploads use): a PDF (one document, headings from its outline) and an OpenAPI or Swagger spec
 * in JSON or YAML (one document per operation, at the spec's URL with the operation's anchor).
 * Other files are skipped (`not_html`); a file of these formats that cannot be read fails its
 * URL with the converter's problem (`pdf_encrypted`, `openapi_invalid`, …).
 */
import { looksLikeOpenApi, OpenApiError, openApiToDocuments, PdfError, pdfToDocuments } from "../knowledge/index.ts";
import type { FileConverter, FileDocument } from "./crawl-types.ts";

/** Extensions whose links a crawl follows for these formats. */
export const FILE_EXTENSIONS = ["pdf", "json", "yaml", "yml"] as const;

const SPEC_TYPES =
  /^(application\/(json|ya?ml|x-ya?ml|vnd\.oai\.openapi[+a-z]*|octet-stream)|text\/(plain|ya?ml|x-ya?ml))\b/;

export const convertFile: FileConverter = async (file) => {
  const type = (file.contentType ?? "").trim().toLowerCase();
  const path = new URL(file.url).pathname.toLowerCase();
  if (type.startsWith("application/pdf") || (path.endsWith(".pdf") && type.startsWith("application/octet-stream"))) {
    try {
      const pdf = await pdfToDocuments(file.bytes, file.url);
      return [{ url: file.url, title: pdf.title, markdown: pdf.markdown }];
    } catch (error) {
      throw error instanceof PdfError ? new Error(`pdf_${error.problem}`) : error;
    }
  }
  if (!SPEC_TYPES.test(type) && !/\.(json|ya?ml)$/.test(path)) return undefined;
  if (!looksLikeOpenApi(file.text)) return undefined;
  try {
    return openApiToDocuments(file.text, file.url).map(
      (d): FileDocument => ({ url: d.url, title: d.title, markdown: d.markdown }),
    );
  } catch (error) {
    throw error instanceof OpenApiError ? new Error(`openapi_${error.problem}`) : error;
  }
};

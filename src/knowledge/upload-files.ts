/**
 * A multipart upload's files into one knowledge base, parsed as the CLI parses them: Markdown
 * and text with front matter, HTML, JSON lines (a result per line), PDF (one document) and
 * OpenAPI specs in .json/.yaml/.yml (a result per document made). Each file fails alone, with
 * why, in its result; bulk.ts stores the documents in batches.
 */
import type { BulkResult } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { asParsed, type BulkOptions, Collector, utf8 } from "./bulk.ts";
import { looksLikeOpenApi } from "./formats-openapi.ts";
import { type FileSource, type ParseRules, parseFile, parseJsonLine } from "./parse.ts";
import {
  formatOf,
  MAX_OPENAPI_BYTES,
  OPENAPI_EXTENSIONS,
  PDF_EXTENSIONS,
  parseOpenApi,
  parsePdf,
} from "./parse-formats.ts";

export const UPLOAD_EXTENSIONS = [
  ".md",
  ".markdown",
  ".txt",
  ".html",
  ".htm",
  ".jsonl",
  ...PDF_EXTENSIONS,
  ...OPENAPI_EXTENSIONS,
];

/**
 * Stores the files of a multipart upload (every `File` part, whatever its field name). A file
 * without a `url` gets the address a docs site serves it at: `source.baseUrl` and its name (a
 * folder upload's relative path) in `source.urlStyle` (docs-url.ts); a PDF or an OpenAPI spec
 * always does, having no front matter.
 */
export async function ingestFiles(
  db: Db,
  kbId: string,
  form: FormData,
  rules: Required<ParseRules>,
  options: BulkOptions,
  source: Pick<FileSource, "baseUrl" | "urlStyle"> = {},
): Promise<BulkResult> {
  const c = new Collector(db, kbId, options);
  return c.collect(async () => {
    for (const [, value] of form.entries()) {
      if (typeof value === "string") continue;
      const part = value as unknown as File;
      const file = part.name || "upload";
      const ext = /\.[^./]+$/.exec(file.toLowerCase())?.[0] ?? "";
      if (!UPLOAD_EXTENSIONS.includes(ext)) {
        const reason = `unsupported file type '${ext || file}' (use ${UPLOAD_EXTENSIONS.join(", ")})`;
        c.fail({ file }, { reason }, "unsupported_media_type");
        continue;
      }
      const format = formatOf(file);
      const fileSource = { ...rules, ...source, relativePath: file };
      if (format === "pdf") {
        // Binary, and bounded by MAX_UPLOAD_BYTES; its text is held to MAX_DOCUMENT_BYTES as it is read.
        await c.file(file, async () => parsePdf(new Uint8Array(await part.arrayBuffer()), file, fileSource));
        continue;
      }
      const limit = format === "openapi" ? MAX_OPENAPI_BYTES : rules.maxBytes * 2 + 64 * 1024;
      if (ext !== ".jsonl" && part.size > limit) {
        const what =
          format === "openapi"
            ? `an OpenAPI file's limit (${limit} bytes)`
            : `MAX_DOCUMENT_BYTES (${rules.maxBytes} bytes)`;
        c.fail({ file }, { reason: `over ${what}`, param: "content", tooLarge: true });
        continue;
      }
      // Not repaired: a file that is not UTF-8 fails (as a JSON body or an ndjson line does).
      const text = utf8(new Uint8Array(await part.arrayBuffer()));
      if (text === null) {
        c.fail({ file }, { reason: "the file is not valid UTF-8" });
        continue;
      }
      if (ext === ".jsonl") {
        for (const [i, line] of text.split("\n").entries()) {
          if (!line.trim()) continue;
          await c.item({ file, line: i + 1 }, () => asParsed(parseJsonLine(line.replace(/\r$/, ""), rules)));
        }
        continue;
      }
      if (format === "openapi") {
        if (!looksLikeOpenApi(text)) {
          const reason = `a ${ext} file is read only as an OpenAPI 3.x or Swagger 2.0 document (documents as JSON lines: .jsonl)`;
          c.fail({ file }, { reason }, "unsupported_media_type");
          continue;
        }
        await c.file(file, async () => parseOpenApi(text, file, fileSource));
        continue;
      }
      await c.item({ file }, () => parseFile(text, file, fileSource));
    }
  });
}

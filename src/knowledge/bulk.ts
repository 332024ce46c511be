/**
 * Bulk uploads into one knowledge base. An ndjson body is read as a stream, line by line, and
 * stored in batches as lines arrive (never held whole); a multipart body's files (.md, .markdown,
 * .txt, .html, .htm, .jsonl) are parsed as the CLI parses them. Each line or file gets its own
 * result; a bad one fails alone.
 */

import type { ErrorCode } from "../contract/errors.ts";
import type { BulkItem, BulkResult } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { isStoreUnavailable } from "../db/errors.ts";
import { type KnowledgeDoc, type ParseProblem, type ParseRules, parseFile, parseJsonLine } from "./parse.ts";
import { BATCH_DOCS, type IngestCounter, ingestDocuments, mergePendingIndexEntries } from "./service.ts";

/**
 * Documents are stored as a stream is read, a batch at a time: at most BATCH_DOCS documents (an
 * ingest transaction's worth) or PENDING_BYTES of their text, whichever comes first, so memory
 * stays bounded by the batch whatever the upload's size. It was 50 documents a call, with the
 * index's pending list merged after each: 4,000 passages/s at 100k (issue 23).
 */
const PENDING_BYTES = 8 * 1_048_576;

const failure = (p: Omit<ParseProblem, "where">): BulkItem["error"] => {
  const code: ErrorCode = p.tooLarge ? "payload_too_large" : "invalid_request";
  return { code, message: p.reason, ...(p.param ? { param: p.param } : {}) };
};

/** How a bulk upload is stored: its timestamp, what stops it (the client gone), what counts it (metrics). */
export interface BulkOptions {
  now: Date;
  signal?: AbortSignal;
  count?: IngestCounter;
}

/** Collects items and stores pending documents in batches, each item keeping its place. */
class Collector {
  readonly items: BulkItem[] = [];
  private pending: { doc: KnowledgeDoc; item: BulkItem }[] = [];
  private pendingBytes = 0;
  constructor(
    private readonly db: Db,
    private readonly kbId: string,
    private readonly options: BulkOptions,
  ) {}

  fail(where: Pick<BulkItem, "line" | "file">, problem: Omit<ParseProblem, "where">, code?: ErrorCode) {
    const error = failure(problem)!;
    this.items.push({ ...where, status: "failed", error: code ? { ...error, code } : error });
  }

  async add(where: Pick<BulkItem, "line" | "file">, doc: KnowledgeDoc) {
    const item: BulkItem = { ...where, url: doc.url, status: "failed" };
    this.items.push(item);
    this.pending.push({ doc, item });
    this.pendingBytes += doc.content.length + doc.title.length;
    if (this.pending.length >= BATCH_DOCS || this.pendingBytes >= PENDING_BYTES) await this.flush();
  }

  async flush() {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    // Same URL twice in one batch: ingest keeps the last; each item learns its own outcome.
    const byDoc = new Map(batch.map((p) => [p.doc, p.item]));
    await ingestDocuments(
      this.db,
      batch.map((p) => p.doc),
      {
        kbId: this.kbId,
        now: this.options.now,
        signal: this.options.signal,
        mergeIndex: false, // once, at the end of the upload (finish)
        onStored: (doc, s) => {
          Object.assign(byDoc.get(doc)!, { id: s.id, status: s.created ? "created" : "replaced" });
          this.options.count?.(1, s.passages);
        },
        onError: (doc, error) => {
          // An outage fails the request (503); a document the database refuses fails alone.
          if (isStoreUnavailable(error) || isStoreUnavailable((error as { cause?: unknown }).cause)) throw error;
          byDoc.get(doc)!.error = { code: "invalid_request", message: "the store refused this document" };
        },
      },
    );
  }

  /**
   * Runs `fill` (which adds and fails items), stores what is still pending, and merges the
   * index's pending entries once for the whole upload: also when the body breaks off or the
   * store fails midway, after the batches already stored.
   */
  async collect(fill: () => Promise<void>): Promise<BulkResult> {
    try {
      await fill();
      await this.flush();
    } finally {
      await mergePendingIndexEntries(this.db);
    }
    return this.result();
  }

  result(): BulkResult {
    const count = (s: BulkItem["status"]) => this.items.filter((i) => i.status === s).length;
    for (const i of this.items)
      if (i.status === "failed" && !i.error)
        i.error = { code: "service_unavailable", message: "not stored (interrupted)" };
    return { created: count("created"), replaced: count("replaced"), failed: count("failed"), results: this.items };
  }
}

/**
 * Lines of a byte stream, decoded as UTF-8. A line longer than `maxLineBytes` is not kept: it is
 * reported as `null` (too long) once its end is found, so a huge line costs no memory.
 */
export async function* lines(body: ReadableStream<Uint8Array>, maxLineBytes: number): AsyncGenerator<string | null> {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let overlong = false;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      yield overlong ? null : buffer.slice(0, nl);
      overlong = false;
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf("\n");
    }
    // Characters are at most 3 UTF-8 bytes per UTF-16 unit: a safe bound without encoding.
    if (buffer.length > maxLineBytes) {
      overlong = true;
      buffer = "";
    }
    if (done) break;
  }
  if (overlong) yield null;
  else if (buffer.trim()) yield buffer;
}

/** Stores the documents of an ndjson stream, one per line. Blank lines are skipped (not counted as lines). */
export async function ingestNdjson(
  db: Db,
  kbId: string,
  body: ReadableStream<Uint8Array>,
  rules: Required<ParseRules>,
  options: BulkOptions,
): Promise<BulkResult> {
  const c = new Collector(db, kbId, options);
  let n = 0;
  return c.collect(async () => {
    // A line holds the document as JSON: escapes can make it up to 6× its content, plus the other fields.
    for await (const line of lines(body, rules.maxBytes * 6 + 64 * 1024)) {
      n++;
      if (line === null) {
        c.fail(
          { line: n },
          { reason: `the line is over MAX_DOCUMENT_BYTES (${rules.maxBytes} bytes)`, tooLarge: true },
        );
        continue;
      }
      if (!line.trim()) continue;
      const r = parseJsonLine(line.replace(/\r$/, ""), rules);
      if ("doc" in r) await c.add({ line: n }, r.doc);
      else c.fail({ line: n }, r.problem);
      if (options.signal?.aborted) break;
    }
  });
}

export const UPLOAD_EXTENSIONS = [".md", ".markdown", ".txt", ".html", ".htm", ".jsonl"];

/** Stores the files of a multipart upload (every `File` part, whatever its field name). */
export async function ingestFiles(
  db: Db,
  kbId: string,
  form: FormData,
  rules: Required<ParseRules>,
  options: BulkOptions,
): Promise<BulkResult> {
  const c = new Collector(db, kbId, options);
  const base = form.get("base_url");
  const baseUrl = typeof base === "string" && base.trim() ? base.trim() : undefined;
  return c.collect(async () => {
    for (const [, value] of form.entries()) {
      if (typeof value === "string") continue;
      const part = value as unknown as File;
      const file = part.name || "upload";
      const ext = /\.[^./]+$/.exec(file.toLowerCase())?.[0] ?? "";
      if (!UPLOAD_EXTENSIONS.includes(ext)) {
        const reason = `unsupported file type '${ext || file}' (use ${UPLOAD_EXTENSIONS.join(", ")}; PDF is not supported)`;
        c.fail({ file }, { reason }, "unsupported_media_type");
        continue;
      }
      if (ext !== ".jsonl" && part.size > rules.maxBytes * 2 + 64 * 1024) {
        c.fail(
          { file },
          { reason: `over MAX_DOCUMENT_BYTES (${rules.maxBytes} bytes)`, param: "content", tooLarge: true },
        );
        continue;
      }
      const text = await part.text();
      if (ext === ".jsonl") {
        for (const [i, line] of text.split("\n").entries()) {
          if (!line.trim()) continue;
          const r = parseJsonLine(line.replace(/\r$/, ""), rules);
          if ("doc" in r) await c.add({ file, line: i + 1 }, r.doc);
          else c.fail({ file, line: i + 1 }, r.problem);
        }
        continue;
      }
      const r = parseFile(text, file, { ...rules, baseUrl, relativePath: file });
      if (r.doc) await c.add({ file }, r.doc);
      else c.fail({ file }, r.problem!);
    }
  });
}

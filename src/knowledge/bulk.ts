/**
 * Bulk uploads into one knowledge base: the results of their lines and files, stored in batches
 * as they come (ndjson.ts reads an ndjson body as a stream, upload-files.ts a multipart body's
 * files). Each line or file gets its own result (an OpenAPI file one per document it makes); a
 * bad one fails alone, whatever goes wrong in reading it.
 */

import type { ErrorCode } from "../contract/errors.ts";
import type { BulkItem, BulkResult } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { isStoreUnavailable } from "../db/errors.ts";
import { BodyBrokeOff, BodyStalled } from "../http/body.ts";
import { BATCH_DOCS, type IngestCounter, ingestDocuments, mergePendingIndexEntries } from "./ingest.ts";
import type { KnowledgeDoc, ParseProblem, parseJsonLine } from "./parse.ts";
import type { Parsed } from "./parse-formats.ts";

/**
 * Documents are stored as a stream is read, a batch at a time: at most BATCH_DOCS documents (an
 * ingest transaction's worth) or PENDING_BYTES of their text, whichever comes first, so memory
 * stays bounded by the batch whatever the upload's size. It was 50 documents a call, with the
 * index's pending list merged after each: 4,000 passages/s at 100k. A document
 * waits at most FLUSH_MS for its batch: a slow upload is stored as it arrives.
 */
const PENDING_BYTES = 8 * 1_048_576;
export const FLUSH_MS = 1_000;

const unreadable = (error: unknown) =>
  `could not be read (${error instanceof Error ? `${error.name}: ${error.message}` : "error"})`;

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
export class Collector {
  readonly items: BulkItem[] = [];
  private pending: { doc: KnowledgeDoc; item: BulkItem }[] = [];
  private pendingBytes = 0;
  private pendingSince = 0;
  constructor(
    private readonly db: Db,
    private readonly kbId: string,
    private readonly options: BulkOptions,
  ) {}

  fail(where: Pick<BulkItem, "line" | "file" | "url">, problem: Omit<ParseProblem, "where">, code?: ErrorCode) {
    const error = failure(problem)!;
    this.items.push({ ...where, status: "failed", error: code ? { ...error, code } : error });
  }

  /**
   * Reads one line or file (`read`) and adds its document or its failure. Whatever `read`
   * throws (a parser's stack overflow, a bug) fails this item alone, never the upload.
   */
  async item(
    where: Pick<BulkItem, "line" | "file">,
    read: () => { doc?: KnowledgeDoc; problem?: Omit<ParseProblem, "where"> },
  ) {
    let r: ReturnType<typeof read>;
    try {
      r = read();
    } catch (error) {
      return this.fail(where, { reason: unreadable(error) });
    }
    if (r.doc) await this.add(where, r.doc);
    else this.fail(where, r.problem!);
  }

  /** Reads one file into any number of documents (a PDF, an OpenAPI spec), as `item` reads one. */
  async file(file: string, read: () => Promise<Parsed>) {
    let r: Parsed;
    try {
      r = await read();
    } catch (error) {
      return this.fail({ file }, { reason: unreadable(error) });
    }
    for (const doc of r.docs) await this.add({ file }, doc);
    for (const { where: _, url, ...problem } of r.problems) this.fail({ file, ...(url ? { url } : {}) }, problem);
  }

  async add(where: Pick<BulkItem, "line" | "file">, doc: KnowledgeDoc) {
    const item: BulkItem = { ...where, url: doc.url, status: "failed" };
    this.items.push(item);
    if (!this.pending.length) this.pendingSince = Date.now();
    this.pending.push({ doc, item });
    this.pendingBytes += doc.content.length + doc.title.length;
    if (this.pending.length >= BATCH_DOCS || this.pendingBytes >= PENDING_BYTES || this.dueIn() <= 0)
      await this.flush();
  }

  /** Milliseconds until the pending documents are due to be stored (Infinity: none pending). */
  dueIn(): number {
    return this.pending.length ? this.pendingSince + FLUSH_MS - Date.now() : Infinity;
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
   * index's pending entries once for the whole upload: also when the store fails midway, after
   * the batches already stored. A body that breaks off or stalls still has its complete lines
   * stored (as they would have been a moment later), then its error goes up.
   */
  async collect(fill: () => Promise<void>): Promise<BulkResult> {
    try {
      await fill();
      await this.flush();
    } catch (error) {
      if (error instanceof BodyBrokeOff || error instanceof BodyStalled) await this.flush();
      throw error;
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

/** Bytes as UTF-8 text, or null when they are not valid UTF-8. */
export function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** parseJsonLine's answer in the shape `Collector.item` reads. */
export const asParsed = (r: ReturnType<typeof parseJsonLine>) => ("doc" in r ? { doc: r.doc } : { problem: r.problem });

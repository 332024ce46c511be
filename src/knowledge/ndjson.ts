/**
 * An ndjson upload: the body is split into lines as its bytes arrive and each line is stored
 * as a document (bulk.ts stores them in batches), so the body is never held whole.
 */

import type { BulkResult } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { type ChunkReader, readChunks } from "../http/body.ts";
import { concatBytes } from "../primitives.ts";
import { asParsed, type BulkOptions, Collector } from "./bulk.ts";
import { type ParseRules, parseJsonLine } from "./parse.ts";

/** One line of the body: its text, or why it has none (over the limit, not UTF-8). */
export type Line = { text: string } | { problem: "too_long" | "not_utf8" };

const NEWLINE = 0x0a;

/**
 * The lines of a byte stream. Bytes are split at newlines before decoding: a line longer than
 * `maxLineBytes` is dropped chunk by chunk as it arrives, never decoded or joined, so a huge line
 * costs no memory; a line that is not valid UTF-8 is reported, never repaired (as a JSON body is
 * refused). A line's decoder strips a byte order mark at its start.
 */
export async function* lines(chunks: Pick<ChunkReader, "next">, maxLineBytes: number): AsyncGenerator<Line> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let overlong = false;
  const end = (): Line => {
    const bytes = parts.length === 1 ? parts[0]! : concatBytes(parts, size);
    const wasOverlong = overlong;
    [parts, size, overlong] = [[], 0, false];
    if (wasOverlong) return { problem: "too_long" };
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
    } catch {
      return { problem: "not_utf8" };
    }
  };
  for (let chunk = await chunks.next(); chunk; chunk = await chunks.next()) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const stop = nl < 0 ? chunk.byteLength : nl;
      if (!overlong && size + (stop - start) > maxLineBytes) [parts, size, overlong] = [[], 0, true];
      else if (!overlong && stop > start) {
        // A line's tail stays past this read: a copy, so it holds no more than its own bytes.
        parts.push(nl < 0 ? chunk.slice(start, stop) : chunk.subarray(start, stop));
        size += stop - start;
      }
      if (nl < 0) break;
      yield end();
      start = nl + 1;
    }
  }
  if (overlong || size > 0) yield end();
}

/** What an ndjson upload reads with: the line limit's documents and the wait allowed between chunks. */
export interface NdjsonRules extends Required<ParseRules> {
  idleMs: number;
}

/**
 * Stores the documents of an ndjson stream, one per line. Blank lines get no result but count
 * in the line numbers. While the client is slow, what arrived is stored at least every
 * FLUSH_MS (bulk.ts), so a body that breaks off loses no complete line.
 */
export async function ingestNdjson(
  db: Db,
  kbId: string,
  body: ReadableStream<Uint8Array>,
  { idleMs, ...rules }: NdjsonRules,
  options: BulkOptions,
): Promise<BulkResult> {
  const c = new Collector(db, kbId, options);
  const chunks = readChunks(body, idleMs, { dueIn: () => c.dueIn(), run: () => c.flush() });
  let n = 0;
  return c.collect(async () => {
    // A line holds the document as JSON: escapes can make it up to 6× its content, plus the other fields.
    for await (const line of lines(chunks, rules.maxBytes * 6 + 64 * 1024)) {
      n++;
      if ("problem" in line) {
        const tooLong = line.problem === "too_long";
        const reason = tooLong
          ? `the line is over MAX_DOCUMENT_BYTES (${rules.maxBytes} bytes)`
          : "the line is not valid UTF-8";
        c.fail({ line: n }, { reason, tooLarge: tooLong });
        continue;
      }
      const text = line.text.replace(/\r$/, "");
      if (!text.trim()) continue;
      await c.item({ line: n }, () => asParsed(parseJsonLine(text, rules)));
      if (options.signal?.aborted) break;
    }
  });
}

/**
 * Storing documents (replace by URL) and their passages; search lives in search.ts. The
 * search statistics are kept by triggers on `chunks` (drizzle/0005), in these transactions.
 */
import { count, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { SQLSTATE, sqlState } from "../db/errors.ts";
import { chunks, documents } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { type Passage, splitIntoPassages } from "./chunk.ts";
import type { KnowledgeDoc } from "./parse.ts";

/** How `ingestDocuments` stamps documents and what it does with one that fails to store. */
export interface IngestOptions {
  now?: Date;
  /** Called for a document the database refused; the rest still load. Without it the error is thrown. */
  onError?: (doc: KnowledgeDoc, error: unknown) => void;
  /**
   * Stops the ingest between batches: no batch starts once it is aborted, and the count of the
   * documents already stored is returned (a CLI's Ctrl-C, a server's shutdown).
   */
  signal?: AbortSignal;
}

// Documents per transaction: statement-level statistics triggers and multi-row statements make
// a batch far cheaper than its documents one by one, and it stays a short transaction.
const BATCH_DOCS = 50;
const BATCH_PASSAGES = 500;

/**
 * Stores documents, returning how many were stored; a URL already present is replaced (its
 * passages too). Documents go in batches, one short transaction each; a batch the database
 * refuses is retried document by document, so only the bad one is reported (or thrown).
 * Between batches it yields to the event loop (PGlite's statements chain through microtasks
 * only), so an abort from a signal handler or a closed connection is heard within a batch.
 */
export async function ingestDocuments(
  db: Db,
  docs: KnowledgeDoc[],
  { now = new Date(), onError, signal }: IngestOptions = {},
): Promise<number> {
  let stored = 0;
  for (const batch of batches(docs)) {
    if (signal && (await stopRequested(signal))) return stored;
    try {
      await withDeadlockRetry(() => storeBatch(db, batch, now));
      stored += batch.length;
      continue;
    } catch (error) {
      if (batch.length === 1 && !onError) throw error;
      if (batch.length === 1) {
        onError!(batch[0]!.doc, error);
        continue;
      }
    }
    for (const one of batch) {
      if (signal?.aborted) return stored;
      try {
        await withDeadlockRetry(() => storeBatch(db, [one], now));
        stored++;
      } catch (error) {
        if (!onError) throw error;
        onError(one.doc, error);
      }
    }
  }
  return stored;
}

/** Lets pending callbacks (signal handlers, aborts) run, then tells whether the ingest must stop. */
async function stopRequested(signal: AbortSignal): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  return signal.aborted;
}

interface Prepared {
  doc: KnowledgeDoc;
  passages: Passage[];
}

/** Consecutive documents in batches; a URL repeated within a batch starts a new one (last wins). */
function* batches(docs: KnowledgeDoc[]): Generator<Prepared[]> {
  let batch: Prepared[] = [];
  let urls = new Set<string>();
  let passages = 0;
  for (const doc of docs) {
    const p = { doc, passages: splitIntoPassages(doc.title, doc.content) };
    if (
      batch.length &&
      (batch.length >= BATCH_DOCS || passages + p.passages.length > BATCH_PASSAGES || urls.has(doc.url))
    ) {
      yield batch;
      [batch, urls, passages] = [[], new Set(), 0];
    }
    batch.push(p);
    urls.add(doc.url);
    passages += p.passages.length;
  }
  if (batch.length) yield batch;
}

/**
 * Concurrent ingests on PostgreSQL update the same knowledge_terms rows (the statistics
 * triggers); the database resolves a lock cycle by failing one transaction (40P01), which
 * then simply runs again.
 */
async function withDeadlockRetry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      const code = sqlState(error);
      if (i >= attempts || (code !== SQLSTATE.deadlockDetected && code !== SQLSTATE.serializationFailure)) throw error;
      await new Promise((r) => setTimeout(r, 10 * i * Math.random()));
    }
  }
}

async function storeBatch(db: Db, batch: Prepared[], now: Date): Promise<void> {
  // One short transaction per batch: never spans anything but these statements.
  await db.transaction(async (tx) => {
    const rows = await tx
      .insert(documents)
      .values(
        batch.map(({ doc }) => ({
          id: newId("doc"),
          url: doc.url,
          title: doc.title,
          content: doc.content,
          updatedAt: now,
        })),
      )
      .onConflictDoUpdate({
        target: documents.url,
        set: { title: sql`excluded.title`, content: sql`excluded.content`, updatedAt: sql`excluded.updated_at` },
      })
      .returning({ id: documents.id, url: documents.url });
    const ids = new Map(rows.map((r) => [r.url, r.id]));
    await tx.delete(chunks).where(
      inArray(
        chunks.documentId,
        rows.map((r) => r.id),
      ),
    );
    const values = batch.flatMap(({ doc, passages }) =>
      passages.map((p, ord) => {
        // The title is every passage's field A; a heading that only repeats it adds nothing.
        const heading = p.heading === doc.title ? "" : p.heading;
        return {
          id: newId("chunk"),
          documentId: ids.get(doc.url)!,
          ord,
          heading: p.heading,
          content: p.content,
          tsv: sql`setweight(to_tsvector('english', ${doc.title}), 'A') || setweight(to_tsvector('english', ${heading}), 'B') || setweight(to_tsvector('english', ${p.content}), 'C')`,
          len: wordCount(`${doc.title} ${heading} ${p.content}`),
        };
      }),
    );
    if (values.length) await tx.insert(chunks).values(values);
  });
}

/** Words in a text: BM25's passage length (the unit only has to be the same for every passage). */
export const wordCount = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

export async function countDocuments(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents);
  return row?.n ?? 0;
}

/**
 * Storing documents (replace by URL) and their passages; search lives in search.ts. The
 * search statistics are kept by triggers on `chunks` (drizzle/0005), in these transactions.
 */
import { count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { isTransientConflict } from "../db/errors.ts";
import { chunks, DEFAULT_KB_ID, documents, knowledgeBases } from "../db/schema.ts";
import { newId } from "../primitives.ts";
import { type Passage, splitIntoPassages } from "./chunk.ts";
import { documentLanguage } from "./language-source.ts";
import type { KnowledgeDoc } from "./parse.ts";
import { insertPassages } from "./passage-index.ts";

/** Told what an ingest stored, as it stores it (the ingest metrics). */
export type IngestCounter = (documents: number, passages: number) => void;

/** How `ingestDocuments` stamps documents and what it does with one that fails to store. */
export interface IngestOptions {
  now?: Date;
  /** The knowledge base the documents go to; default: the one named `default`. */
  kbId?: string;
  /** Called for each document stored: its id, whether it was new (else it replaced one), its passages. */
  onStored?: (doc: KnowledgeDoc, stored: { id: string; created: boolean; passages: number }) => void;
  /** Called for a document the database refused; the rest still load. Without it the error is thrown. */
  onError?: (doc: KnowledgeDoc, error: unknown) => void;
  /**
   * Stops the ingest between batches: no batch starts once it is aborted, and the count of the
   * documents already stored is returned (a CLI's Ctrl-C, a server's shutdown).
   */
  signal?: AbortSignal;
  /**
   * Merge the GIN index's pending entries when done (default). A caller that ingests in several
   * calls (a bulk upload read as a stream) merges once at its end instead: merging after every
   * few dozen documents cost more than storing them.
   */
  mergeIndex?: boolean;
  /**
   * Store them as this web source's documents: a URL held by a document the source did not store
   * (uploaded by hand, or another source's) is left as it is and reported to `onSkipped`.
   * Without it, a document replaced by URL stops being a source's (an upload takes it over).
   */
  sourceId?: string;
  onSkipped?: (doc: KnowledgeDoc) => void;
}

// Documents per transaction (at most BATCH_PASSAGES passages). The statistics are updated once
// per batch and cost per distinct term, so larger batches are cheaper per passage (
// from 50/500 to 400/2,000); a batch still commits within about a second.
export const BATCH_DOCS = 400;
const BATCH_PASSAGES = 2_000;

/**
 * Stores documents, returning how many were stored; a URL already present is replaced (its
 * passages too). Documents go in batches, one short transaction each; a batch the database
 * refuses is retried document by document, so only the bad one is reported (or thrown).
 * Between batches it yields to the event loop (PGlite's statements chain through microtasks
 * only), so an abort from a signal handler or a closed connection is heard within a batch.
 */
export async function ingestDocuments(db: Db, docs: KnowledgeDoc[], options: IngestOptions = {}): Promise<number> {
  const { now = new Date(), onError, signal, kbId = DEFAULT_KB_ID, onStored, mergeIndex = true } = options;
  const store = (batch: Prepared[]) =>
    withDeadlockRetry(() => storeBatch(db, { kbId, sourceId: options.sourceId }, batch, now)).then((rows) => {
      for (const { doc, passages } of batch) {
        const row = rows.get(doc.url);
        if (row) onStored?.(doc, { ...row, passages: passages.length });
        else options.onSkipped?.(doc);
      }
    });
  try {
    return await storeAll(docs, store, onError, signal);
  } finally {
    if (mergeIndex) await mergePendingIndexEntries(db);
  }
}

/**
 * The passages' GIN index takes new entries into its pending list (drizzle/0009); merging them
 * here, once per ingest, means searches after an ingest never scan a list. A failure only
 * leaves the list for the next ingest or vacuum to merge: searches stay correct, so it is not
 * the ingest's error.
 */
export async function mergePendingIndexEntries(db: Db): Promise<void> {
  await db.execute(sql`select gin_clean_pending_list('chunks_tsv_idx'::regclass)`).catch(() => {});
}

async function storeAll(
  docs: KnowledgeDoc[],
  store: (batch: Prepared[]) => Promise<void>,
  onError: IngestOptions["onError"],
  signal: AbortSignal | undefined,
): Promise<number> {
  let stored = 0;
  for (const batch of batches(docs)) {
    if (signal && (await stopRequested(signal))) return stored;
    try {
      await store(batch);
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
        await store([one]);
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
 * Concurrent ingests on PostgreSQL update the same knowledge_base_terms rows (the statistics
 * triggers); the database resolves a lock cycle by failing one transaction (40P01), which
 * then simply runs again.
 */
export async function withDeadlockRetry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      if (i >= attempts || !isTransientConflict(error)) throw error;
      await new Promise((r) => setTimeout(r, 10 * i * Math.random()));
    }
  }
}

/**
 * One batch in one short transaction: upsert the documents by (knowledge base, URL), replace
 * their passages, move the knowledge base's updated_at. A document is replaced whole or not at
 * all; concurrent uploads of one URL serialise on its row (the conflict's lock), leaving one.
 */
async function storeBatch(
  db: Db,
  { kbId, sourceId }: { kbId: string; sourceId?: string },
  batch: Prepared[],
  now: Date,
): Promise<Map<string, { id: string; created: boolean }>> {
  return db.transaction(async (tx) => {
    // The knowledge base's row first: its lock orders the batch with a change of the knowledge
    // base's language (language-source.ts), so documents are stored under the setting they
    // commit with, never under one a concurrent PATCH has just replaced (and re-indexed without them).
    const [kb] = await tx
      .update(knowledgeBases)
      .set({ updatedAt: now })
      .where(eq(knowledgeBases.id, kbId))
      .returning({ language: knowledgeBases.language });
    const languages = new Map(batch.map(({ doc }) => [doc.url, documentLanguage(doc, kb?.language ?? null)]));
    const rows = await tx
      .insert(documents)
      .values(
        batch.map(({ doc }) => ({
          id: newId("doc"),
          kbId,
          url: doc.url,
          title: doc.title,
          content: doc.content,
          metadata: doc.metadata ?? {},
          language: languages.get(doc.url)!.language,
          languageSource: languages.get(doc.url)!.source,
          sourceId: sourceId ?? null,
          updatedAt: now,
        })),
      )
      .onConflictDoUpdate({
        target: [documents.kbId, documents.url],
        set: {
          title: sql`excluded.title`,
          content: sql`excluded.content`,
          metadata: sql`excluded.metadata`,
          language: sql`excluded.language`,
          languageSource: sql`excluded.language_source`,
          updatedAt: sql`excluded.updated_at`,
          sourceId: sql`excluded.source_id`,
        },
        // A source replaces only its own documents (the row stays locked, unchanged, otherwise).
        setWhere: sourceId ? eq(documents.sourceId, sourceId) : undefined,
      })
      // xmax = 0: the row was inserted, not updated (PostgreSQL's documented upsert tell).
      .returning({ id: documents.id, url: documents.url, created: sql<boolean>`(xmax = 0)` });
    await tx.delete(chunks).where(
      inArray(
        chunks.documentId,
        rows.map((r) => r.id),
      ),
    );
    const ids = new Map(rows.map((r) => [r.url, r.id]));
    const stored = batch.filter(({ doc }) => ids.has(doc.url));
    await insertPassages(tx, kbId, stored, ids, new Map([...languages].map(([url, l]) => [url, l.language])));
    return new Map(rows.map((r) => [r.url, { id: r.id, created: r.created === true || String(r.created) === "true" }]));
  });
}

export async function countDocuments(db: Db, kbId?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(documents)
    .where(kbId ? eq(documents.kbId, kbId) : undefined);
  return row?.n ?? 0;
}

/** Storing documents (replace by URL) and ranked full-text search over their passages. */
import { count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { chunks, documents } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { splitIntoPassages } from "./chunk.ts";
import type { KnowledgeDoc } from "./parse.ts";

/** A passage found by search, with the document it comes from. */
export interface SearchHit {
  url: string;
  title: string;
  heading: string;
  content: string;
  rank: number;
}

/** How `ingestDocuments` stamps documents and what it does with one that fails to store. */
export interface IngestOptions {
  now?: Date;
  /** Called for a document the database refused; the rest still load. Without it the error is thrown. */
  onError?: (doc: KnowledgeDoc, error: unknown) => void;
}

/** Stores documents, returning how many were stored; a URL already present is replaced (its passages too). */
export async function ingestDocuments(db: Db, docs: KnowledgeDoc[], { now = new Date(), onError }: IngestOptions = {}): Promise<number> {
  let stored = 0;
  for (const doc of docs) {
    try {
      await storeDocument(db, doc, now);
      stored++;
    } catch (error) {
      if (!onError) throw error;
      onError(doc, error);
    }
  }
  return stored;
}

async function storeDocument(db: Db, doc: KnowledgeDoc, now: Date): Promise<void> {
  const passages = splitIntoPassages(doc.title, doc.content);
  // One short transaction per document: never spans anything but these statements.
  await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(documents)
      .values({ id: newId("doc"), url: doc.url, title: doc.title, content: doc.content, updatedAt: now })
      .onConflictDoUpdate({
        target: documents.url,
        set: { title: doc.title, content: doc.content, updatedAt: now },
      })
      .returning({ id: documents.id });
    await tx.delete(chunks).where(eq(chunks.documentId, row!.id));
    if (passages.length) {
      await tx.insert(chunks).values(
        passages.map((p, ord) => ({ id: newId("chunk"), documentId: row!.id, ord, heading: p.heading, content: p.content })),
      );
    }
  });
}

export async function countDocuments(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents);
  return row?.n ?? 0;
}

/** Words of a question as tsquery operands: letters and digits only, so nothing can inject syntax. */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1))].slice(0, 32);
}

const MIN_PASSAGES_FOR_IDF = 50;

/**
 * Drops terms that occur in so many passages that they say nothing about this knowledge base
 * ("elysia" in Elysia's docs): PostgreSQL's ranking has no inverse document frequency of its own.
 * At least one term is always kept.
 */
export async function distinctiveTerms(db: Db, terms: string[], maxShare = 0.2): Promise<string[]> {
  if (terms.length <= 1) return terms;
  // Scalar subqueries: each count is a GIN bitmap lookup, not a scan evaluating every term per row.
  const df = (t: string) =>
    sql<number>`(select count(*) from ${chunks} where ${chunks.tsv} @@ to_tsquery('english', ${t}))`.mapWith(Number);
  const counts = await db
    .select({
      total: sql<number>`(select count(*) from ${chunks})`.mapWith(Number),
      ...Object.fromEntries(terms.map((t, i) => [`t${i}`, df(t)])),
    })
    .from(sql`(select 1) as one`);
  const row = counts[0] as Record<string, number> | undefined;
  // In a handful of passages every word is "common": the filter only means something at scale.
  if (!row || row.total! < MIN_PASSAGES_FOR_IDF) return terms;
  const kept = terms.filter((_t, i) => (row[`t${i}`] ?? 0) / row.total! <= maxShare);
  if (kept.length > 0) return kept;
  // Every term is common: keep the rarest one that matches at all.
  const rarest = terms
    .map((t, i) => ({ t, n: row[`t${i}`] ?? 0 }))
    .filter((x) => x.n > 0)
    .sort((a, b) => a.n - b.n)[0];
  return rarest ? [rarest.t] : terms;
}

/**
 * Passages matching any of the terms, best first. ts_rank_cd rewards passages that cover more
 * terms close together (heading matches weigh more); normalisation 1 divides by the log of the
 * passage length so long lists do not win by sheer size. English stemming and stop words come
 * from PostgreSQL's own `english` configuration.
 */
export async function searchPassages(db: Db, terms: string[], limit = 6): Promise<SearchHit[]> {
  if (terms.length === 0) return [];
  const q = sql`to_tsquery('english', ${terms.join(" | ")})`;
  const rank = sql<number>`ts_rank_cd(${chunks.tsv}, ${q}, 1)`;
  return db
    .select({ url: documents.url, title: documents.title, heading: chunks.heading, content: chunks.content, rank })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.documentId))
    .where(sql`${chunks.tsv} @@ ${q}`)
    .orderBy(desc(rank), chunks.id)
    .limit(limit);
}

/**
 * A knowledge base's documents: add or replace one, page them (with a URL prefix), read one,
 * delete one. Storing goes through ingestDocuments (service.ts), the same path as bulk uploads
 * and the CLI. Every statement names the knowledge base in its `where`.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Document, DocumentSummary } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { documents, knowledgeBases } from "../db/schema.ts";
import { type Cursor, encodeCursor } from "../http/cursor.ts";
import { isId } from "../primitives.ts";
import { type IngestCounter, ingestDocuments, withDeadlockRetry } from "./ingest.ts";
import type { KnowledgeDoc } from "./parse.ts";

const summaryFields = {
  id: documents.id,
  kbId: documents.kbId,
  url: documents.url,
  title: documents.title,
  metadata: documents.metadata,
  updatedAt: documents.updatedAt,
  sourceId: documents.sourceId,
  bytes: sql<number>`octet_length(${documents.content})`,
  // Written out qualified: Drizzle renders a column of a one-table select unqualified, and in a subquery "id" would be the inner table's.
  passages: sql<number>`(select count(*) from chunks c where c.document_id = "documents"."id")::int`,
};
type SummaryRow = { [K in keyof typeof summaryFields]: unknown } & {
  id: string;
  kbId: string;
  url: string;
  title: string;
  metadata: Record<string, unknown>;
  updatedAt: Date;
  sourceId: string | null;
};

const toSummary = (r: SummaryRow): DocumentSummary => ({
  id: r.id,
  knowledge_base_id: r.kbId,
  url: r.url,
  title: r.title,
  metadata: r.metadata ?? {},
  bytes: Number(r.bytes),
  passage_count: Number(r.passages),
  source_id: r.sourceId ?? null,
  updated_at: r.updatedAt.toISOString(),
});

/** Stores one document (replacing the same URL in the knowledge base); whether it was new. */
export async function putDocument(
  db: Db,
  kbId: string,
  doc: KnowledgeDoc,
  now = new Date(),
  count?: IngestCounter,
): Promise<{ document: Document; created: boolean }> {
  let stored: { id: string; created: boolean } | undefined;
  await ingestDocuments(db, [doc], {
    kbId,
    now,
    onStored: (_, s) => {
      stored = s;
      count?.(1, s.passages);
    },
  });
  const document = await getDocument(db, kbId, stored!.id);
  return { document: document!, created: stored!.created };
}

export async function getDocument(db: Db, kbId: string, id: string): Promise<Document | null> {
  if (!isId("doc", id)) return null;
  const [row] = await db
    .select({ ...summaryFields, content: documents.content })
    .from(documents)
    .where(and(eq(documents.kbId, kbId), eq(documents.id, id)));
  return row ? { ...toSummary(row as SummaryRow), content: row.content } : null;
}

/** A page of a knowledge base's documents, newest first (by id: TypeIDs sort by creation). */
export async function pageDocuments(
  db: Db,
  kbId: string,
  { limit, cursor, urlPrefix }: { limit: number; cursor: Cursor | null; urlPrefix?: string },
) {
  const rows = await db
    .select(summaryFields)
    .from(documents)
    .where(
      and(
        eq(documents.kbId, kbId),
        cursor ? sql`${documents.id} < ${cursor.id}` : undefined,
        urlPrefix ? sql`starts_with(${documents.url}, ${urlPrefix})` : undefined,
      ),
    )
    .orderBy(desc(documents.id))
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit) as SummaryRow[];
  const last = page.at(-1);
  return {
    data: page.map(toSummary),
    pagination: {
      has_more: hasMore,
      next_cursor: hasMore && last ? await encodeCursor(db, { createdAt: 0, id: last.id }, kbId) : null,
    },
  };
}

/**
 * Deletes a document and its passages (cascade) in one statement, which also moves the
 * knowledge base's updated_at; false when there is no such document in it. Search and replies
 * read committed rows only, so nothing cites it once this returns.
 */
export async function deleteDocument(db: Db, kbId: string, id: string, now = new Date()): Promise<boolean> {
  if (!isId("doc", id)) return false;
  // A concurrent language change re-indexes the knowledge base's passages and takes the locks
  // the other way round: the database fails one of the two (40P01), and this one runs again.
  const rows = (await withDeadlockRetry(() =>
    db.execute(sql`
    with gone as (
      delete from ${documents} where ${documents.kbId} = ${kbId} and ${documents.id} = ${id} returning ${documents.id}
    ), touched as (
      update ${knowledgeBases} set updated_at = ${now.toISOString()}::timestamptz
      where ${knowledgeBases.id} = ${kbId} and exists (select 1 from gone)
    )
    select id from gone`),
  )) as unknown as { rows?: unknown[] } | unknown[];
  return (Array.isArray(rows) ? rows : (rows.rows ?? [])).length === 1;
}

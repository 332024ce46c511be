/**
 * The documents of a web source, as its syncs see them: which it holds, and the deletion at the
 * end of a complete sync. The writes go through ingest.ts (`sourceId`); deleting the source
 * deletes its documents by the foreign key.
 */
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/rows.ts";
import { documents } from "../db/schema.ts";

export interface SourceDeletion {
  /** Documents deleted. */
  deleted: number;
  /** Set when the guard refused: how many would have gone, of how many. Nothing was deleted. */
  refused?: { wouldDelete: number; of: number };
}

/**
 * Deletes the source's documents whose URL is not in `keep` (the pages a complete sync saw), in
 * one statement that also applies the guard: unless `allowLarge`, nothing is deleted when that
 * would remove more than half of the source's documents (a site answering 404 everywhere for an
 * hour must not empty a knowledge base).
 */
export async function deleteSourceDocumentsExcept(
  db: Db,
  p: { kbId: string; sourceId: string; keep: readonly string[]; allowLarge: boolean; now: Date },
): Promise<SourceDeletion> {
  const keep = sql`${JSON.stringify(p.keep)}::jsonb`;
  const [row] = await rowsOf<Record<"deleted" | "doomed" | "total", number | string>>(
    db,
    sql`
    with owned as (
      select id, url from documents where kb_id = ${p.kbId} and source_id = ${p.sourceId}
    ), doomed as (
      select id from owned where not (${keep} ? url)
    ), gone as (
      delete from documents
      where id in (select id from doomed)
        and (${p.allowLarge} or (select count(*) from doomed) * 2 <= (select count(*) from owned))
      returning id
    ), touched as (
      update knowledge_bases set updated_at = ${p.now.toISOString()}
      where id = ${p.kbId} and exists (select 1 from gone)
      returning id
    )
    select (select count(*) from gone) as deleted, (select count(*) from doomed) as doomed,
           (select count(*) from owned) as total, (select count(*) from touched) as touched`,
  );
  const [deleted, doomed, total] = [Number(row?.deleted), Number(row?.doomed), Number(row?.total)];
  if (deleted === 0 && doomed > 0) return { deleted, refused: { wouldDelete: doomed, of: total } };
  return { deleted };
}

/** How many documents a source's syncs stored. */
export async function countSourceDocuments(db: Db, sourceId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents).where(eq(documents.sourceId, sourceId));
  return row?.n ?? 0;
}

/** Which of these URLs hold a document the source stored (one a hand upload took over is not its). */
export async function sourceDocumentUrls(db: Db, sourceId: string, urls: readonly string[]): Promise<Set<string>> {
  if (!urls.length) return new Set();
  const rows = await db
    .select({ url: documents.url })
    .from(documents)
    .where(and(eq(documents.sourceId, sourceId), inArray(documents.url, [...urls])));
  return new Set(rows.map((r) => r.url));
}

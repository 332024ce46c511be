/**
 * What the syncs saw of each page (`source_pages`; this file is its one writer): the validators
 * the next crawl sends, the page as crawled (the boilerplate pass reads every page of the site
 * from here, so a crawl never holds the site in memory), and the hash of the text last stored.
 */
import { and, asc, eq, gt, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { sourcePages } from "../db/schema.ts";
import type { CrawledPage } from "./crawl-types.ts";

export type PageRow = typeof sourcePages.$inferSelect;
export interface StoredValidators {
  etag: string | null;
  lastModified: string | null;
  links: string[];
}

/** Every page's validators and links, by requested URL, for the crawl's conditional requests. */
export async function validatorsOf(db: Db, sourceId: string): Promise<Map<string, StoredValidators>> {
  const rows = await db
    .select({
      url: sourcePages.url,
      etag: sourcePages.etag,
      lastModified: sourcePages.lastModified,
      links: sourcePages.links,
    })
    .from(sourcePages)
    .where(eq(sourcePages.sourceId, sourceId));
  return new Map(rows.map(({ url, ...v }) => [url, v]));
}

/** Records fetched pages (each under the URL asked for), seen by this sync: one statement. */
export async function savePages(
  db: Db,
  sourceId: string,
  syncId: string,
  pages: readonly CrawledPage[],
): Promise<void> {
  // A crawl asks each URL once; were one asked twice, its last record wins, as with one write each.
  const byUrl = new Map(pages.map((page) => [page.requestedUrl, page]));
  if (!byUrl.size) return;
  await db
    .insert(sourcePages)
    .values(
      [...byUrl.values()].map((page) => ({
        sourceId,
        url: page.requestedUrl,
        documentUrl: page.url,
        title: page.title,
        markdown: page.markdown,
        lang: page.lang ?? null,
        links: page.links,
        etag: page.etag,
        lastModified: page.lastModified,
        seenSyncId: syncId,
      })),
    )
    .onConflictDoUpdate({
      target: [sourcePages.sourceId, sourcePages.url],
      set: {
        documentUrl: sql`excluded.document_url`,
        title: sql`excluded.title`,
        markdown: sql`excluded.markdown`,
        lang: sql`excluded.lang`,
        links: sql`excluded.links`,
        etag: sql`excluded.etag`,
        lastModified: sql`excluded.last_modified`,
        seenSyncId: sql`excluded.seen_sync_id`,
      },
    });
}

/** Marks known pages seen by this sync (a 304, or a failed fetch whose document is kept): one statement. */
export async function markSeen(db: Db, sourceId: string, syncId: string, urls: readonly string[]): Promise<void> {
  if (!urls.length) return;
  await db
    .update(sourcePages)
    .set({ seenSyncId: syncId })
    .where(and(eq(sourcePages.sourceId, sourceId), inArray(sourcePages.url, [...urls])));
}

/** The pages this sync saw, a page of rows at a time in URL order (after `afterUrl`). */
export async function seenPages(db: Db, sourceId: string, syncId: string, afterUrl: string, limit: number) {
  return db
    .select()
    .from(sourcePages)
    .where(and(eq(sourcePages.sourceId, sourceId), eq(sourcePages.seenSyncId, syncId), gt(sourcePages.url, afterUrl)))
    .orderBy(asc(sourcePages.url))
    .limit(limit);
}

/** The distinct document URLs this sync saw: what a complete sync keeps. */
export async function seenDocumentUrls(db: Db, sourceId: string, syncId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ url: sourcePages.documentUrl })
    .from(sourcePages)
    .where(and(eq(sourcePages.sourceId, sourceId), eq(sourcePages.seenSyncId, syncId)));
  return rows.map((r) => r.url);
}

/** Records the hash of the text now stored in these documents (document URL → hash): one statement. */
export async function setStoredHashes(db: Db, sourceId: string, hashes: ReadonlyMap<string, string>): Promise<void> {
  if (!hashes.size) return;
  const urls = [...hashes.keys()];
  const byUrl = sql.join(
    urls.map((url) => sql`when ${url} then ${hashes.get(url)!}`),
    sql` `,
  );
  await db
    .update(sourcePages)
    .set({ storedHash: sql`case ${sourcePages.documentUrl} ${byUrl} end` })
    .where(and(eq(sourcePages.sourceId, sourceId), inArray(sourcePages.documentUrl, urls)));
}

/** Forgets the pages a complete sync did not see (their documents were deleted with them). */
export async function dropUnseen(db: Db, sourceId: string, syncId: string): Promise<void> {
  await db.delete(sourcePages).where(and(eq(sourcePages.sourceId, sourceId), ne(sourcePages.seenSyncId, syncId)));
}

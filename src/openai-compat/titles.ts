/** The titles of a knowledge base's documents by URL, for url_citation annotations (one statement). */
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { documents } from "../db/schema.ts";

export async function titlesOf(db: Db, kbId: string, urls: string[]): Promise<Map<string, string>> {
  if (urls.length === 0) return new Map();
  const rows = await db
    .select({ url: documents.url, title: documents.title })
    .from(documents)
    .where(and(eq(documents.kbId, kbId), inArray(documents.url, urls)));
  return new Map(rows.map((r) => [r.url, r.title]));
}

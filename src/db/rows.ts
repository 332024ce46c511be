import type { SQL } from "drizzle-orm";
import type { Db } from "./client.ts";

/** Rows of a raw statement, whichever driver ran it (postgres.js: an array; PGlite: `.rows`). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

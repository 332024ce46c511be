import { type Query, SQL } from "drizzle-orm";
import type { PgDialect, PgSession } from "drizzle-orm/pg-core";
import type { Db } from "./client.ts";

/** Rows of a raw statement, whichever driver ran it (postgres.js: an array; PGlite: `.rows`). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

/** What drizzle keeps on every database and transaction object (`db.dialect` is marked internal). */
interface DrizzleInternals {
  dialect: PgDialect;
  _: { session: PgSession };
}

/**
 * `rowsOf` for a hot statement whose TEXT has a few fixed shapes (every value is a parameter):
 * on PostgreSQL the driver prepares it once per connection (postgres.js caches by text), so
 * the server parses it once rather than on every request — the search statement's parse and
 * plan cost as much as its execution. Never for text that varies with the data (a multi-row
 * VALUES list): every shape is a statement held by every connection. PGlite has no named
 * statements to keep; it runs the same text unprepared.
 */
export async function preparedRows<T>(
  db: Db,
  query: SQL | Query,
  /** Values of the placeholders (`sql.placeholder`) of a statement built once. */
  values?: Record<string, unknown>,
): Promise<T[]> {
  const { dialect, _ } = db as unknown as DrizzleInternals;
  const built = query instanceof SQL ? dialect.sqlToQuery(query) : query;
  const prepared = _.session.prepareQuery(built, undefined, "parley_prepared", false);
  const result = (await prepared.execute(values)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

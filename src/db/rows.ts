/**
 * Running raw statements on either driver: their rows, prepared where the text is fixed, and
 * the per-database cache (`getOrCreate`) that holds each feature's prepared statements, and the
 * per-database HMAC keys every instance shares (`sharedHmacKey`, read through instance-values.ts
 * once: a request only finds it in the cache).
 */
import { type Query, SQL, sql } from "drizzle-orm";
import type { PgDialect, PgSession } from "drizzle-orm/pg-core";
import { fromBase64url, toBase64url } from "../primitives.ts";
import type { Db } from "./client.ts";
import { sharedValue } from "./instance-values.ts";

/** Rows of a raw statement, whichever driver ran it (postgres.js: an array; PGlite: `.rows`). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

/** Whether a table (or `schema.table`) exists: older stores lack the newer tables. */
export async function tableExists(db: Db, name: string): Promise<boolean> {
  const [row] = await rowsOf<{ t: string | null }>(db, sql`select to_regclass(${name})::text as t`);
  return Boolean(row?.t);
}

/** What drizzle keeps on every database and transaction object (`db.dialect` is marked internal). */
interface DrizzleInternals {
  dialect: PgDialect;
  _: { session: PgSession };
}

/**
 * `rowsOf` for a hot statement whose TEXT has a few fixed shapes (every value is a parameter):
 * on PostgreSQL the driver prepares it once per connection (postgres.js caches by text), so
 * the server parses it once rather than on every request. Never for text that varies with the
 * data (a multi-row VALUES list): every shape is a statement held by every connection. Nor for a
 * statement whose best plan depends on the data's size (the search): after five runs PostgreSQL
 * may keep a generic plan, made for the table as it was then (a knowledge base grown from 1k to
 * 100k passages searched in 69 ms instead of 13). PGlite has no named statements to keep.
 */
export function preparedRows<T>(db: Db, query: SQL | Query, values?: Record<string, unknown>): Promise<T[]> {
  return execute<T>(db, query, values, "parley_prepared");
}

/**
 * `rowsOf` for a statement built once with placeholders (`sql.placeholder`) and run with
 * `values`, unprepared: parsed and planned for these values each time.
 */
export function builtRows<T>(db: Db, query: Query, values: Record<string, unknown>): Promise<T[]> {
  return execute<T>(db, query, values, undefined);
}

async function execute<T>(
  db: Db,
  query: SQL | Query,
  values: Record<string, unknown> | undefined,
  name: string | undefined,
): Promise<T[]> {
  const { dialect, _ } = db as unknown as DrizzleInternals;
  const built = query instanceof SQL ? dialect.sqlToQuery(query) : query;
  // drizzle's postgres.js session prepares exactly when the statement has a name.
  const statement = _.session.prepareQuery(built, undefined, name, false);
  const result = (await statement.execute(values)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

/**
 * The value `map` holds for `key`, created on first use. Per-database prepared statements are
 * built once per database (a WeakMap keyed by it) and shared.
 */
export function getOrCreate<K extends object, V>(map: WeakMap<K, V>, key: K, create: () => V): V;
export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V;
export function getOrCreate<K extends object, V>(map: Map<K, V> | WeakMap<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

const hmacKeys = new WeakMap<Db, Map<string, Promise<CryptoKey>>>();

/**
 * An HMAC-SHA-256 signing key every instance shares, stored under `name`: created by the first
 * instance to need it, then read by all, and kept per database. A failed read (database down)
 * is not kept: the next caller tries again.
 */
export function sharedHmacKey(db: Db, name: string): Promise<CryptoKey> {
  let byName = hmacKeys.get(db);
  if (!byName) {
    byName = new Map();
    hmacKeys.set(db, byName);
  }
  let key = byName.get(name);
  if (!key) {
    key = (async () => {
      const value = await sharedValue(db, name, toBase64url(crypto.getRandomValues(new Uint8Array(32))));
      return crypto.subtle.importKey("raw", fromBase64url(value), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    })();
    key.catch(() => byName.delete(name));
    byName.set(name, key);
  }
  return key;
}

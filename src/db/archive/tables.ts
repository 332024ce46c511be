/**
 * Which tables an archive holds and in what order: Parley's own tables (this release's schema,
 * plus the passage vectors' table when hybrid search made it), never another application's in
 * the same database, nor the search statistics that triggers on `chunks` keep (rebuilt as the
 * passages are loaded). Ordered so that every table comes after the tables it references, as the
 * database's foreign keys say (read from the catalog: right for whatever schema the store is at).
 */
import { getTableName, is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../client.ts";
import { rowsOf } from "../rows.ts";
import * as schema from "../schema.ts";
import { ArchiveError, IDENTIFIER } from "./format.ts";

/** Kept by triggers on `chunks` (drizzle/0006, 0024): loading the passages rebuilds them. */
export const DERIVED_TABLES = new Set([
  "knowledge_terms",
  "knowledge_stats",
  "knowledge_base_terms",
  "knowledge_base_stats",
]);

/** Made at start when embeddings are configured, not by a migration (knowledge/embeddings). */
export const VECTORS_TABLE = "chunk_embeddings";

/** Every table name Parley owns (whether or not this store has it). */
export const OWNED_TABLES: ReadonlySet<string> = new Set([
  ...Object.values(schema)
    .filter((v) => is(v, PgTable))
    .map((v) => getTableName(v as PgTable)),
  VECTORS_TABLE,
]);

export interface TablePlan {
  name: string;
  /** Columns written and loaded: every column but generated ones (the database computes them). */
  columns: string[];
  /**
   * The primary key's columns, text ones compared byte by byte (`collate "C"`): the order rows
   * are written in, the same on every store holding the same rows (empty: the table has none).
   */
  key: { column: string; collatable: boolean }[];
}

/** The store's archivable tables with their columns, referenced tables first. */
export async function archiveTables(db: Db): Promise<TablePlan[]> {
  const columns = await rowsOf<{ table_name: string; column_name: string }>(
    db,
    sql`select table_name::text, column_name::text from information_schema.columns
      where table_schema = 'public' and is_generated = 'NEVER'
      order by table_name, ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const c of columns) {
    if (!OWNED_TABLES.has(c.table_name) || DERIVED_TABLES.has(c.table_name)) continue;
    if (!IDENTIFIER.test(c.column_name))
      throw new ArchiveError(`column ${c.table_name}.${c.column_name} has a name an archive cannot carry`);
    byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  }
  const references = await rowsOf<{ child: string; parent: string }>(
    db,
    sql`select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
      from pg_constraint c join pg_namespace n on n.oid = c.connamespace
      where c.contype = 'f' and n.nspname = 'public'`,
  );
  const parents = new Map<string, Set<string>>();
  for (const r of references) {
    const [child, parent] = [unquote(r.child), unquote(r.parent)];
    if (child !== parent && byTable.has(child) && byTable.has(parent))
      parents.set(child, (parents.get(child) ?? new Set()).add(parent));
  }
  const keys = await rowsOf<{ table_name: string; column_name: string; collatable: boolean }>(
    db,
    sql`select c.relname::text as table_name, a.attname::text as column_name, a.attcollation <> 0 as collatable
      from pg_constraint p join pg_class c on c.oid = p.conrelid join pg_namespace n on n.oid = c.relnamespace
      cross join lateral unnest(p.conkey) with ordinality k(attnum, position)
      join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
      where p.contype = 'p' and n.nspname = 'public' order by c.relname, k.position`,
  );
  const keyOf = new Map<string, TablePlan["key"]>();
  for (const k of keys) {
    if (!byTable.has(k.table_name) || !IDENTIFIER.test(k.column_name)) continue;
    keyOf.set(k.table_name, [...(keyOf.get(k.table_name) ?? []), { column: k.column_name, collatable: k.collatable }]);
  }
  return topological([...byTable.keys()].sort(), parents).map((name) => ({
    name,
    columns: byTable.get(name)!,
    key: keyOf.get(name) ?? [],
  }));
}

const unquote = (name: string) => name.replace(/^public\./, "").replace(/^"(.*)"$/, "$1");

/** `names` ordered so each comes after its parents (stable: alphabetical among equals). */
function topological(names: string[], parents: Map<string, Set<string>>): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (done.has(name)) return;
    if (path.has(name)) throw new ArchiveError(`tables reference each other in a cycle through ${name}`);
    path.add(name);
    for (const parent of [...(parents.get(name) ?? [])].sort()) visit(parent, path);
    path.delete(name);
    done.add(name);
    order.push(name);
  };
  for (const name of names) visit(name, new Set());
  return order;
}

/**
 * Loads an archive into an empty store, all or nothing: the rows go in one transaction that
 * also reads the archive to its end, so an archive that turns out cut or edited (read.ts) — or a
 * process killed half-way — leaves the store as empty as it was. An archive of an older schema
 * is loaded at its own schema (the store migrated that far first) and then migrated with the
 * rest; a newer one is refused. `dryRun` reads and checks everything and changes nothing.
 */
import { sql } from "drizzle-orm";
import { PARLEY_VERSION } from "../../config/version.ts";
import type { Db, Store } from "../client.ts";
import { appliedMigrations, migrate, SCHEMA } from "../migrate.ts";
import { migrations } from "../migrations.gen.ts";
import { rowsOf, tableExists } from "../rows.ts";
import { ARCHIVE_LOCK, ArchiveError, type ArchiveHeader, IDENTIFIER } from "./format.ts";
import { type ArchivePart, openArchive } from "./read.ts";
import { archiveTables, DERIVED_TABLES, OWNED_TABLES } from "./tables.ts";

/** Tables whose rows make a store not empty: what a person made (seeded defaults do not count). */
const USER_TABLES = ["api_keys", "conversations", "documents", "sources"];

/** Rows a statement loads at most, and its parameter's size at most. */
const BATCH_ROWS = 500;
const BATCH_CHARS = 4 * 1024 * 1024;

export interface ImportReport {
  header: ArchiveHeader;
  /** Rows per table, as loaded (or as they would be, on a dry run). */
  counts: Record<string, number>;
  /** Why it cannot be loaded (a dry run lists them all; a load throws the first ones). */
  problems: string[];
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Makes what the archive needs that no migration makes (the vectors' table), before the load. */
  prepare?: (header: ArchiveHeader, db: Db) => Promise<void>;
  /** Told as each table starts loading (a long import's progress). */
  onTable?: (table: string) => void;
}

export async function importArchive(
  store: Store,
  source: ReadableStream<Uint8Array>,
  { dryRun = false, prepare, onTable }: ImportOptions = {},
): Promise<ImportReport> {
  const { header, parts } = await openArchive(source);
  const at = migrations.findIndex((m) => m.hash === header.schema.hash);
  const problems = [...schemaProblems(header, at), ...(await targetProblems(store.db, at))];
  if (dryRun) {
    const counts: Record<string, number> = Object.fromEntries(header.tables.map((t) => [t, 0]));
    try {
      for await (const part of parts) if (part.kind === "row") counts[part.table] = (counts[part.table] ?? 0) + 1;
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      problems.push(error.message);
    }
    return { header, counts, problems };
  }
  if (problems.length) throw new ArchiveError(problems.join("; "));
  await migrate(store, { upTo: at + 1 });
  await prepare?.(header, store.db);
  // Its own connection on PostgreSQL (the pool's deadline bounds a whole transaction, and a load
  // runs as long as the archive is large); two imports into one database, one after the other.
  const counts = await store.withLock(ARCHIVE_LOCK, (db) =>
    db.transaction(async (tx) => load(tx as Db, header, parts, onTable)),
  );
  await migrate(store);
  return { header, counts, problems };
}

function schemaProblems(header: ArchiveHeader, at: number): string[] {
  if (at >= 0) return [];
  if (header.schema.migrations > migrations.length)
    return [
      `the archive was written by Parley ${header.parley_version} at schema ${header.schema.last}, newer than this release (Parley ${PARLEY_VERSION}, up to ${SCHEMA}): import it with that release or a newer one`,
    ];
  return [`the archive's schema ${header.schema.last} is not one this release knows`];
}

/** Why the store cannot take the archive: ahead of its schema, or holding data. */
async function targetProblems(db: Db, at: number): Promise<string[]> {
  const applied = await appliedMigrations(db);
  if (at >= 0 && applied.length > at + 1)
    return [
      `the target store is already at a newer schema (${applied.length} migrations) than the archive (${at + 1}): import into a new store (a new DATA_DIR or an empty database), then start this release on it`,
    ];
  const full = applied.length ? await nonEmpty(db) : [];
  return full.length
    ? [`the target store is not empty (it has ${full.join(", ")}): import into a new store, never over data`]
    : [];
}

async function nonEmpty(db: Db): Promise<string[]> {
  const full: string[] = [];
  for (const table of USER_TABLES) {
    if (!(await tableExists(db, table))) continue;
    const [row] = await rowsOf<{ any: boolean }>(
      db,
      sql`select exists (select 1 from ${sql.identifier(table)}) as any`,
    );
    if (row?.any) full.push(table.replace(/_/g, " "));
  }
  return full;
}

/** In the load's transaction: clears what migrations seeded, then loads each table in turn. */
async function load(
  tx: Db,
  header: ArchiveHeader,
  parts: AsyncGenerator<ArchivePart>,
  onTable?: (table: string) => void,
): Promise<Record<string, number>> {
  const problems = await targetProblems(
    tx,
    migrations.findIndex((m) => m.hash === header.schema.hash),
  );
  if (problems.length) throw new ArchiveError(problems.join("; "));
  const target = new Map((await archiveTables(tx)).map((t) => [t.name, new Set(t.columns)]));
  for (const name of header.tables) {
    if (!OWNED_TABLES.has(name) || DERIVED_TABLES.has(name) || !IDENTIFIER.test(name) || !target.has(name))
      throw new ArchiveError(`the archive holds a table this store has no place for: ${name}`);
  }
  for (const name of [...header.tables].reverse()) await tx.execute(sql`delete from ${sql.identifier(name)}`);
  const counts: Record<string, number> = {};
  let batch: { table: string; columns: string[]; lines: string[]; chars: number } | undefined;
  const flush = async () => {
    if (!batch?.lines.length) return;
    const cols = batch.columns.map((c) => `"${c}"`).join(", ");
    await tx.execute(
      sql`insert into ${sql.identifier(batch.table)} (${sql.raw(cols)}) select ${sql.raw(cols)}
        from jsonb_populate_recordset(null::${sql.identifier(batch.table)}, ${`[${batch.lines.join(",")}]`}::jsonb)`,
    );
    counts[batch.table] = (counts[batch.table] ?? 0) + batch.lines.length;
    batch.lines = [];
    batch.chars = 0;
  };
  for await (const part of parts) {
    if (part.kind === "table") {
      await flush();
      const { parley_table: table, columns } = part.marker;
      const known = target.get(table)!;
      const unknown = columns.filter((c) => typeof c !== "string" || !IDENTIFIER.test(c) || !known.has(c));
      if (unknown.length) throw new ArchiveError(`the archive's ${table} has columns this store lacks: ${unknown}`);
      batch = { table, columns, lines: [], chars: 0 };
      onTable?.(table);
      counts[table] = 0;
    } else if (part.kind === "row") {
      batch!.lines.push(part.line);
      batch!.chars += part.line.length;
      if (batch!.lines.length >= BATCH_ROWS || batch!.chars >= BATCH_CHARS) await flush();
    }
  }
  // The reader has checked the trailer (an archive without a valid one threw above): commit.
  await flush();
  return counts;
}

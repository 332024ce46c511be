/**
 * Writes a store's archive (format.ts) as a stream, from one consistent snapshot: a read-only
 * REPEATABLE READ transaction, so a store that serves meanwhile gives the state of one moment.
 * Rows are written in primary-key order (text compared byte by byte) and timestamps in UTC, so
 * two stores holding the same rows write the same lines, whatever their physical layout, server
 * collation or TimeZone (the trailer's `rows_sha256` is then equal). They are read through a
 * cursor a page at a time, so memory holds one page and the stream waits for its reader
 * (backpressure). A reader that leaves ends the transaction.
 * On PGlite the store has one connection: requests wait while the rows are read, never while a
 * slow reader downloads them (spool.ts; README, Backups). On PostgreSQL it runs on a connection of
 * its own (`withLock`, format.ts ARCHIVE_LOCK), outside the pool's bound on a transaction.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { PARLEY_VERSION } from "../../config/version.ts";
import type { Db, Store } from "../client.ts";
import { appliedMigrations } from "../migrate.ts";
import { migrations } from "../migrations.gen.ts";
import { rowsOf, tableExists } from "../rows.ts";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_LOCK,
  ArchiveError,
  type ArchiveHeader,
  type ArchiveTrailer,
  type TableMarker,
} from "./format.ts";
import { spooled } from "./spool.ts";
import { archiveTables, type TablePlan, VECTORS_TABLE } from "./tables.ts";

/** Rows read per statement: a page of passages is a few hundred kilobytes. */
const PAGE_ROWS = 500;

/**
 * The store's archive, gzip-compressed; its header is built from the snapshot it reads. On
 * PGlite it is spooled (spool.ts): its one connection is held only while the rows are read.
 */
export function exportArchive(store: Pick<Store, "kind" | "withLock">): ReadableStream<Uint8Array> {
  const lines = new TransformStream<string, string>();
  void write(store, lines.writable.getWriter()).catch(() => {});
  const archive = lines.readable.pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream("gzip"));
  return store.kind === "pglite" ? spooled(archive) : archive;
}

async function write(store: Pick<Store, "kind" | "withLock">, out: WritableStreamDefaultWriter<string>): Promise<void> {
  const hash = createHash("sha256");
  const rowsHash = createHash("sha256");
  const emit = async (line: string, hashed: "all" | "rows" | "none" = "rows") => {
    if (hashed !== "none") hash.update(`${line}\n`);
    if (hashed === "rows") rowsHash.update(`${line}\n`);
    await out.ready;
    await out.write(`${line}\n`);
  };
  try {
    await store.withLock(ARCHIVE_LOCK, (db) =>
      db.transaction(
        async (tx) => {
          // Timestamps with time zone print in the session's zone: UTC, whatever the server's default.
          await tx.execute(sql`set local timezone = 'UTC'`);
          const embeddings = await embeddingsOf(tx as Db);
          // Vectors are carried with their model; a table without any is left out.
          const tables = (await archiveTables(tx as Db)).filter((t) => t.name !== VECTORS_TABLE || embeddings);
          const header: ArchiveHeader = {
            parley_archive: ARCHIVE_FORMAT,
            parley_version: PARLEY_VERSION,
            schema: await schemaOf(tx as Db),
            store: store.kind,
            created_at: new Date().toISOString(),
            embeddings,
            tables: tables.map((t) => t.name),
          };
          await emit(JSON.stringify(header), "all");
          const counts: Record<string, number> = {};
          for (const table of tables) {
            const marker: TableMarker = { parley_table: table.name, columns: table.columns };
            await emit(JSON.stringify(marker));
            counts[table.name] = 0;
            for await (const row of rowsOfTable(tx as Db, table)) {
              await emit(row);
              counts[table.name]!++;
            }
          }
          const trailer: ArchiveTrailer = {
            parley_archive_end: true,
            counts,
            sha256: hash.digest("hex"),
            rows_sha256: rowsHash.digest("hex"),
          };
          await emit(JSON.stringify(trailer), "none");
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      ),
    );
    await out.close();
  } catch (error) {
    await out.abort(error).catch(() => {});
    throw error;
  }
}

/**
 * The rows of `table` as JSON text (generated columns left out), in its key's order, a page at a
 * time from a cursor (one sort, not one per page). A table without a key: by physical position.
 */
async function* rowsOfTable(db: Db, table: TablePlan): AsyncGenerator<string> {
  const order = table.key.length
    ? table.key.map((k) => `"${k.column}"${k.collatable ? ' collate "C"' : ""}`).join(", ")
    : "ctid";
  const cursor = sql.identifier("parley_archive_rows");
  await db.execute(
    sql`declare ${cursor} no scroll cursor for select (${sql.raw(jsonObjectOf(table.columns))})::text as row
      from ${sql.identifier(table.name)} order by ${sql.raw(order)}`,
  );
  for (;;) {
    const page = await rowsOf<{ row: string }>(db, sql`fetch forward ${sql.raw(String(PAGE_ROWS))} from ${cursor}`);
    for (const r of page) yield r.row;
    if (page.length < PAGE_ROWS) break;
  }
  await db.execute(sql`close ${cursor}`);
}

/** `jsonb_build_object` of the columns (names checked by archiveTables), 40 a call: it takes 100 arguments. */
function jsonObjectOf(columns: string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < columns.length; i += 40)
    parts.push(
      `jsonb_build_object(${columns
        .slice(i, i + 40)
        .map((c) => `'${c}', "${c}"`)
        .join(", ")})`,
    );
  return parts.join(" || ");
}

async function schemaOf(db: Db): Promise<ArchiveHeader["schema"]> {
  const applied = await appliedMigrations(db);
  const last = migrations.find((m) => m.hash === applied.at(-1)?.hash);
  if (!last) throw new ArchiveError("the store is not migrated by this release: run `parley migrate` first");
  return { migrations: applied.length, last: last.tag, hash: last.hash };
}

async function embeddingsOf(db: Db): Promise<ArchiveHeader["embeddings"]> {
  if (!(await tableExists(db, "chunk_embeddings"))) return null;
  const [row] = await rowsOf<{ model: string | null; dimensions: number }>(
    db,
    sql`select (select model from chunk_embeddings limit 1) as model, a.atttypmod as dimensions
      from pg_attribute a where a.attrelid = to_regclass('chunk_embeddings') and a.attname = 'embedding'`,
  );
  return row?.model ? { model: row.model, dimensions: Number(row.dimensions) } : null;
}

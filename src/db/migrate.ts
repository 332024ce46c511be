/**
 * Applies the embedded drizzle-kit migrations with drizzle's public migrator, under an advisory
 * lock so that instances starting together apply each migration once.
 *
 * drizzle-orm's migrators only read a migrations folder (`migrationsFolder`); the binary and
 * Deno carry no such folder, so the embedded copy (src/db/migrations.gen.ts) is written to a
 * private temporary folder for the call and removed after. The files are byte-identical to
 * drizzle/ (the migrator's hash of each file must match the embedded `hash`, which is what
 * already-migrated databases recorded), and that is checked before anything is applied.
 * `node:fs`/`node:os` are used here only because drizzle's migrator itself needs them; Bun and
 * Deno both provide them.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import { PARLEY_VERSION } from "../config/version.ts";
import type { Db, Store } from "./client.ts";
import { claimMark } from "./instance-values.ts";
import { migrations } from "./migrations.gen.ts";
import { rowsOf, tableExists } from "./rows.ts";

const MIGRATION_LOCK = 0x5041524c; // "PARL"

/** The last migration this release knows: the schema it writes. */
export const SCHEMA = migrations.at(-1)!.tag;

/** A store migrated by a newer release: this one would misread its rows, so it refuses to open it. */
export class NewerSchemaError extends Error {
  constructor(applied: number, releases: string[]) {
    const by = releases.length ? ` (opened by Parley ${releases.join(", ")})` : "";
    super(
      `this store's schema is newer than this release: ${applied} migrations applied${by}, while Parley ${PARLEY_VERSION} knows ${migrations.length} (up to ${SCHEMA}). Downgrades are not supported: run the newer release, or import a backup made by this one into a new store`,
    );
    this.name = "NewerSchemaError";
  }
}

/** How far a store's schema is: the migrations applied, in order (none on a new store). */
export async function appliedMigrations(db: Db): Promise<{ hash: string; createdAt: number }[]> {
  if (!(await tableExists(db, "drizzle.__drizzle_migrations"))) return [];
  return (
    await rowsOf<{ hash: string; created_at: string }>(
      db,
      sql`select hash, created_at::text from drizzle.__drizzle_migrations order by created_at, id`,
    )
  ).map((r) => ({ hash: r.hash, createdAt: Number(r.created_at) }));
}

/**
 * Brings the store's schema up to date (or to its first `upTo` migrations: an import loads an
 * older archive at its own schema, then migrates); safe to call from many instances at once.
 * A store ahead of this release is refused (NewerSchemaError), never half-read.
 */
export async function migrate(store: Store, { upTo = migrations.length }: { upTo?: number } = {}): Promise<void> {
  const wanted = migrations.slice(0, upTo);
  const folder = await writeMigrationsFolder(wanted);
  try {
    const config = { migrationsFolder: folder };
    // Fail before touching the database if the written folder would not reproduce the hashes.
    const read = readMigrationFiles(config);
    if (read.map((m) => m.hash).join() !== wanted.map((m) => m.hash).join()) {
      throw new Error("embedded migrations do not match their recorded hashes; run `bun run db:generate`");
    }
    await store.withLock(MIGRATION_LOCK, async (db) => {
      const applied = await appliedMigrations(db);
      if (applied.some((m) => m.createdAt > migrations.at(-1)!.folderMillis))
        throw new NewerSchemaError(applied.length, await releasesOf(db));
      if (store.kind === "pglite") await migratePglite(db as never, config);
      else await migratePostgres(db as never, config);
      // Which releases opened this store: a older one refusing it names them.
      if (upTo === migrations.length) await claimMark(db, `${RELEASE_MARK}${PARLEY_VERSION}`);
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const RELEASE_MARK = "opened_by:";

/** The releases recorded as having opened the store (their marks). */
async function releasesOf(db: Db): Promise<string[]> {
  if (!(await tableExists(db, "instance_secrets"))) return [];
  const rows = await rowsOf<{ name: string }>(
    db,
    sql`select name from instance_secrets where name like ${`${RELEASE_MARK}%`} order by value`,
  );
  return rows.map((r) => r.name.slice(RELEASE_MARK.length));
}

/** drizzle-kit's layout: `<tag>.sql` files plus `meta/_journal.json` listing them in order. */
async function writeMigrationsFolder(wanted: typeof migrations): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "parley-migrations-"));
  await mkdir(join(folder, "meta"));
  const entries = wanted.map((m, idx) => ({
    idx,
    version: "7",
    when: m.folderMillis,
    tag: m.tag,
    breakpoints: m.bps,
  }));
  await writeFile(
    join(folder, "meta", "_journal.json"),
    JSON.stringify({ version: "7", dialect: "postgresql", entries }),
  );
  for (const m of wanted) await writeFile(join(folder, `${m.tag}.sql`), m.sql.join("--> statement-breakpoint"));
  return folder;
}

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
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { Store } from "./client.ts";
import { migrations } from "./migrations.gen.ts";

const MIGRATION_LOCK = 0x5041524c; // "PARL"

/** Brings the store's schema up to date; safe to call from many instances at once. */
export async function migrate(store: Store): Promise<void> {
  const folder = await writeMigrationsFolder();
  try {
    const config = { migrationsFolder: folder };
    // Fail before touching the database if the written folder would not reproduce the hashes.
    const read = readMigrationFiles(config);
    if (read.map((m) => m.hash).join() !== migrations.map((m) => m.hash).join()) {
      throw new Error("embedded migrations do not match their recorded hashes; run `bun run db:generate`");
    }
    await store.withLock(MIGRATION_LOCK, async (db) => {
      if (store.kind === "pglite") await migratePglite(db as never, config);
      else await migratePostgres(db as never, config);
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** drizzle-kit's layout: `<tag>.sql` files plus `meta/_journal.json` listing them in order. */
async function writeMigrationsFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "parley-migrations-"));
  await mkdir(join(folder, "meta"));
  const entries = migrations.map((m, idx) => ({
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
  for (const m of migrations) await writeFile(join(folder, `${m.tag}.sql`), m.sql.join("--> statement-breakpoint"));
  return folder;
}

/**
 * A data folder a newer release migrated, opened by this one as a user would: `parley migrate`
 * and `parley serve` both refuse it with one line naming the releases, and exit 1.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { loadEnv } from "../../src/config/env.ts";
import { PARLEY_VERSION } from "../../src/config/version.ts";
import { appliedMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations.gen.ts";
import { rowsOf } from "../../src/db/rows.ts";
import { openStoreFromEnv } from "../../src/runtime/store.ts";
import { cli, dataDir, launch, PROCESS_TEST_MS } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

/** Opens the folder as the CLI does (its lock, its private files), runs `work`, closes it. */
async function inFolder<T>(dir: string, work: (db: Awaited<ReturnType<typeof openStoreFromEnv>>["db"]) => Promise<T>) {
  const umask = process.umask(); // openStoreFromEnv makes this process's files private: only for this call
  const store = await openStoreFromEnv(loadEnv({ DATA_DIR: dir }), { command: "test" });
  try {
    return await work(store.db);
  } finally {
    await store.close();
    process.umask(umask);
  }
}

const REFUSAL =
  /^error: this store's schema is newer than this release: (\d+) migrations applied \(opened by Parley (.+)\), while Parley (\S+) knows (\d+) \(up to (\w+)\)\. Downgrades are not supported/;

// PGlite folders only; the PostgreSQL run would repeat it (the refusal itself: tests/upgrade.test.ts).
describe.skipIf(onPostgres)("a data folder a newer release migrated", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await dataDir("parley-newer-");
    await inFolder(dir, async (db) => {
      const future = migrations.at(-1)!.folderMillis + 86_400_000;
      await db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('9.9.9', ${future})`);
      await db.execute(sql`delete from instance_secrets where name like 'opened_by:%'`);
      await db.execute(sql`insert into instance_secrets (name, value) values ('opened_by:9.9.9', now()::text)`);
    });
  });

  const expectRefusal = (stderr: string) => {
    const lines = stderr.trim().split("\n");
    expect(lines, stderr).toHaveLength(1); // one line, no stack trace
    const m = REFUSAL.exec(lines[0]!);
    expect(m, stderr).not.toBeNull();
    expect(m!.slice(1, 6)).toEqual([
      String(migrations.length + 1),
      "9.9.9",
      PARLEY_VERSION,
      String(migrations.length),
      migrations.at(-1)!.tag,
    ]);
  };

  test("parley migrate refuses it (exit 1, one line), and changes nothing", async () => {
    const r = await cli(["migrate"], { DATA_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expectRefusal(r.stderr);
    const after = await inFolder(dir, async (db) => ({
      applied: (await appliedMigrations(db)).length,
      marks: await rowsOf<{ name: string }>(db, sql`select name from instance_secrets where name like 'opened_by:%'`),
    }));
    expect(after).toEqual({ applied: migrations.length + 1, marks: [{ name: "opened_by:9.9.9" }] });
  });

  test("parley serve refuses it at start (exit 1, one line), never listening", async () => {
    const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir });
    const { code, logs, stderr } = await srv.exited();
    expect(code).toBe(1);
    expect(logs.some((l) => l.msg === "listening")).toBe(false);
    expectRefusal(stderr);
  });
});

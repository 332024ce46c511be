/** Migrations: idempotent, and applied once when several instances start together (advisory lock). */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import postgres from "postgres";
import { openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { migrations } from "../src/db/migrations.gen.ts";
import { freshPglite, onPostgres, pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

// A fresh PGlite comes from the run's image: made here, outside any test's timeout.
beforeAll(() => pgliteImage(), 300_000);

describe("migrate", () => {
  test("PGlite: applying twice changes nothing", async () => {
    const store = await freshPglite();
    await migrate(store);
    await migrate(store);
    const rows = (
      await (store.db as unknown as { $client: { query(q: string): Promise<{ rows: unknown[] }> } }).$client.query(
        "select hash from drizzle.__drizzle_migrations",
      )
    ).rows;
    expect(rows).toHaveLength(migrations.length);
    await store.close();
  });

  test.skipIf(!onPostgres)(
    "PostgreSQL: three instances migrating a new database at once apply each migration once",
    async () => {
      const url = new URL(process.env.DATABASE_URL!);
      const name = `parley_migrate_${process.pid}_${Date.now()}`;
      const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      try {
        url.pathname = `/${name}`;
        const stores = [0, 1, 2].map(() => openPostgres(url.toString(), { max: 2 }));
        await Promise.all(stores.map((s) => migrate(s)));
        await Promise.all(stores.map((s) => s.close()));
        const check = postgres(url.toString(), { max: 1 });
        const rows = await check`select hash from drizzle.__drizzle_migrations`;
        await check.end();
        expect(rows.map((r) => r.hash)).toEqual(migrations.map((m) => m.hash));
      } finally {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
  );
});

/**
 * One store for the whole run, shared by every test file (PGlite's cold start costs seconds).
 * DATABASE_URL set → that PostgreSQL database (.ci/run creates a fresh one per run and drops
 * it); unset → an in-memory PGlite. Tests isolate themselves by creating their own keys.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { openPglite, openPostgres, pgliteStore, type Store } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { ingestDocuments } from "../../src/knowledge/ingest.ts";
import { parseJsonl } from "../../src/knowledge/parse.ts";
import { SAMPLE_DOCS } from "../../src/knowledge/sample.ts";

/** A small knowledge base about "Wren", a made-up web framework: a fixture inside this repository. */
export const CORPUS = fileURLToPath(new URL("../fixtures/kb.jsonl", import.meta.url));
export const onPostgres = Boolean(process.env.DATABASE_URL);

/** `make` run once, on first call; a failure is not kept, so the next call tries again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((e) => {
      made = undefined;
      throw e;
    });
    return made;
  };
}

/**
 * A new in-memory PGlite, empty (not migrated), loaded from an image of a database initdb'd once
 * per run: PGlite's initdb takes 4–6 s (over 20 s on a busy machine), loading the image about 1 s.
 * The test store is one such copy, and so is every test's own PGlite (a store the test closes…).
 */
export async function freshPglite(): Promise<Store> {
  return openPglite(undefined, { loadDataDir: await pgliteImage() });
}

/**
 * The run's initdb'd image, made on first use. A file whose tests need a fresh PGlite makes it in
 * `beforeAll(pgliteImage, …)` with a long timeout (on PostgreSQL runs the shared store does not).
 */
export const pgliteImage: () => Promise<Blob> = once(async () => {
  const pg = await PGlite.create();
  try {
    return await pg.dumpDataDir("none");
  } finally {
    await pg.close();
  }
});

/**
 * The run's image of a store after every migration (and nothing else), made on first use from
 * the initdb'd one: loading it costs about what loading that one does, migrating half a second
 * more, for each of the many tests that want a migrated, empty store of their own.
 */
const migratedPgliteImage = once(async () => {
  const pg = await PGlite.create({ loadDataDir: await pgliteImage() });
  try {
    await migrate(pgliteStore(pg));
    return await pg.dumpDataDir("none");
  } finally {
    await pg.close();
  }
});

/** A new in-memory PGlite, migrated and empty (on PostgreSQL runs too), loaded from that image. */
export async function migratedPglite(): Promise<Store> {
  return openPglite(undefined, { loadDataDir: await migratedPgliteImage() });
}

async function open(): Promise<Store> {
  const store = onPostgres ? openPostgres(process.env.DATABASE_URL!, { max: 20 }) : await freshPglite();
  await migrate(store);
  const { docs } = parseJsonl(readFileSync(CORPUS, "utf8"), CORPUS);
  await ingestDocuments(store.db, [...SAMPLE_DOCS, ...docs]);
  return store;
}

/** The run's store, migrated and loaded with the sample docs and the fixture corpus. */
export const testStore: () => Promise<Store> = once(open);

/** A second, independent connection to the same database (PostgreSQL), or the same store (PGlite). */
export async function secondStore(): Promise<Store> {
  if (!onPostgres) return testStore();
  await testStore();
  return openPostgres(process.env.DATABASE_URL!, { max: 20 });
}

/**
 * The run's one second pool (PostgreSQL), for the second of two instances that are never closed
 * (`twoInstances`): a pool per pair held its connections to the end of the run, and a slow run
 * took the server past its 100 ("too many clients").
 */
export const sharedSecondStore: () => Promise<Store> = once(secondStore);

/**
 * A store of the test's own, migrated and empty (no key, no document), for state that is the
 * whole store's (e.g. whether an admin key exists): a fresh PGlite, or on PostgreSQL a database
 * created for it. `drop()` closes it and drops that database. `migrated: false` leaves it as a
 * new store is before anything opened it (no table at all); `upTo`: migrated to its first
 * `upTo` migrations only (the schema of an earlier release).
 */
export async function ownStore({ migrated = true, upTo }: { migrated?: boolean; upTo?: number } = {}): Promise<{
  store: Store;
  drop(): Promise<void>;
  /** PostgreSQL: the database's URL. */
  url?: string;
}> {
  if (!onPostgres) {
    if (migrated && upTo === undefined) {
      const store = await migratedPglite();
      return { store, drop: () => store.close() };
    }
    const store = await freshPglite();
    if (migrated) await migrate(store, { upTo });
    return { store, drop: () => store.close() };
  }
  const url = new URL(process.env.DATABASE_URL!);
  const name = `parley_own_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const { default: postgres } = await import("postgres");
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  url.pathname = `/${name}`;
  const store = openPostgres(url.toString(), { max: 10 });
  if (migrated) await migrate(store, { upTo });
  return {
    store,
    url: url.toString(),
    async drop() {
      await store.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

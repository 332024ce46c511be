/**
 * Archives: a store's export loads into an empty store and everything works as before (keys,
 * conversations and their order, signed cursors, search, usage); two stores holding the same
 * rows write the same lines (rows in key order, timestamps in UTC); a cut, edited or foreign
 * archive is refused and leaves the target empty; a dry run changes nothing.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { ArchiveError, exportArchive, importArchive, openArchive } from "../src/db/archive/index.ts";
import { openPostgres, type Store } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { parseJsonl } from "../src/knowledge/parse.ts";
import { expectStatus, type Harness, harness } from "./helpers/app.ts";
import { CORPUS, freshPglite, onPostgres, ownStore, pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(60_000);

const bytesOf = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer());
const streamOf = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
const gzipOf = async (text: string) => bytesOf(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")));
const textOf = async (bytes: Uint8Array) =>
  new Response(streamOf(bytes).pipeThrough(new DecompressionStream("gzip"))).text();
const trailerOf = async (bytes: Uint8Array) => JSON.parse((await textOf(bytes)).trimEnd().split("\n").at(-1)!);

const drops: (() => Promise<void>)[] = [];
async function store(migrated = true): Promise<Store> {
  const own = await ownStore({ migrated });
  drops.push(own.drop);
  return own.store;
}
afterAll(async () => {
  for (const drop of drops.splice(0)) await drop().catch(() => {});
});

let source: Harness;
let key: string;
let archive: Uint8Array;
const conversations: string[] = [];

beforeAll(async () => {
  await pgliteImage();
  source = await harness({ store: await store() });
  const { docs } = parseJsonl(readFileSync(CORPUS, "utf8"), CORPUS);
  await ingestDocuments(source.store.db, docs);
  key = await source.key("pro");
  for (const message of ["How do I install Wren?", "How do I define a route?", "What is middleware?"]) {
    const r = await source.call("POST", "/v1/chat", { key, json: { message } });
    expectStatus(r, 200);
    conversations.push((r.json as { conversation_id: string }).conversation_id);
  }
  // A listing signs its cursor with the store's key (made on first use): the archive carries it.
  expectStatus(await source.call("GET", "/v1/conversations?limit=1", { key }), 200);
  archive = await bytesOf(exportArchive(source.store));
}, 120_000);

describe("archive round trip", () => {
  test("the archive names its schema, store and tables; every row loads into an empty store, identical", async () => {
    const { header } = await openArchive(streamOf(archive));
    expect(header).toMatchObject({ parley_archive: 1, store: source.store.kind, embeddings: null });
    expect(header.tables.indexOf("api_keys")).toBeLessThan(header.tables.indexOf("conversations"));
    expect(header.tables).not.toContain("knowledge_base_terms");
    const target = await store(false);
    const report = await importArchive(target, streamOf(archive));
    const trailer = await trailerOf(archive);
    expect(report.counts).toEqual(trailer.counts);
    expect(report.counts.conversations).toBeGreaterThanOrEqual(3);
    const again = await bytesOf(exportArchive(target));
    expect((await trailerOf(again)).rows_sha256).toBe(trailer.rows_sha256);

    const copy = await harness({ store: target });
    const list = (s: Harness, query = "") => s.call("GET", `/v1/conversations?limit=2${query}`, { key });
    const [before, after] = [await list(source), await list(copy)];
    expectStatus(after, 200);
    expect(after.json).toEqual(before.json);
    const cursor = (before.json as unknown as { pagination: { next_cursor: string } }).pagination.next_cursor;
    expect(cursor).toBeString();
    expect((await list(copy, `&cursor=${cursor}`)).json).toEqual((await list(source, `&cursor=${cursor}`)).json);
    const read = (s: Harness) => s.call("GET", `/v1/conversations/${conversations[0]}`, { key });
    expect((await read(copy)).json).toEqual((await read(source)).json);
    const ask = (s: Harness) => s.call("POST", "/v1/chat", { key, json: { message: "How do I define a route?" } });
    const [a, b] = [(await ask(source)).json as any, (await ask(copy)).json as any];
    expect(b.sources).toEqual(a.sources);
    expect(b.content).toBe(a.content);
    const usage = (s: Harness) => s.call("GET", "/v1/usage", { key });
    expect((await usage(copy)).json).toEqual((await usage(source)).json);
  });

  test("the same rows write the same lines, whatever the rows' physical order or the session's TimeZone", async () => {
    // A PGlite on every run (one connection: the session's TimeZone is the export's).
    const target = await freshPglite();
    drops.push(() => target.close());
    await importArchive(target, streamOf(archive));
    // An update moves a row to a new physical position (its ctid) without changing what it holds.
    await target.db.execute(
      sql`update conversations set title = title where id = (select id from conversations order by ctid limit 1)`,
    );
    // A server set up in a local time zone prints timestamps in it (initdb takes the system's).
    await target.db.execute(sql`set timezone = 'America/New_York'`);
    const again = await bytesOf(exportArchive(target));
    expect((await trailerOf(again)).rows_sha256).toBe((await trailerOf(archive)).rows_sha256);
    const rowsOf = async (bytes: Uint8Array) => (await textOf(bytes)).split("\n").slice(1, -2);
    expect(await rowsOf(again)).toEqual(await rowsOf(archive));
    expect((await textOf(again)).match(/"created_at": "[^"]*"/)![0]).toEndWith('+00:00"');
  });

  test.skipIf(!onPostgres)(
    "PostgreSQL: an import that outlasts the pool's deadline (an archive that arrives slowly) completes",
    async () => {
      const own = await ownStore({ migrated: false });
      drops.push(own.drop);
      // The pool's deadline bounds a whole transaction: 300 ms here; the load takes over a second.
      const store = openPostgres(own.url!, { max: 2, waitMs: 300 });
      drops.push(() => store.close());
      const size = Math.ceil(archive.length / 20);
      const chunks = Array.from({ length: 20 }, (_, i) => archive.slice(i * size, (i + 1) * size));
      const slowArchive = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const next = chunks.shift();
            if (chunks.length < 19) await Bun.sleep(80);
            if (next) controller.enqueue(next);
            else controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      const report = await importArchive(store, slowArchive);
      expect(report.counts).toEqual((await trailerOf(archive)).counts);
      const again = await bytesOf(exportArchive(store));
      expect((await trailerOf(again)).rows_sha256).toBe((await trailerOf(archive)).rows_sha256);
    },
  );

  test("a dry run reports the counts and changes nothing; a store holding data is refused", async () => {
    const target = await store(false);
    const report = await importArchive(target, streamOf(archive), { dryRun: true });
    expect(report.problems).toEqual([]);
    expect(report.counts.conversations).toBe((await trailerOf(archive)).counts.conversations);
    const refused = await importArchive(source.store, streamOf(archive), { dryRun: true });
    expect(refused.problems.join()).toContain("the target store is not empty");
    expect(importArchive(source.store, streamOf(archive))).rejects.toThrow(ArchiveError);
  });
});

describe.skipIf(!onPostgres)("an archive outlasts the pool's bound on a statement", () => {
  test("an export taking longer than DB_WAIT_MS runs on its own connection, and the pool still answers", async () => {
    const bounded = openPostgres(process.env.DATABASE_URL!, { waitMs: 100 });
    try {
      // Slower than the bound: each page waits a little (the reader reads a page at a time).
      const reader = exportArchive(bounded).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        await new Promise((r) => setTimeout(r, 20));
      expect((await bounded.db.execute(sql`select 1 as one`)) as unknown).toBeDefined();
    } finally {
      await bounded.close();
    }
  });
});

describe("archives refused", () => {
  const cases: [string, () => Promise<Uint8Array>, RegExp][] = [
    ["cut short", async () => archive.slice(0, Math.floor(archive.length * 0.6)), /cut short|not a gzip/],
    ["not gzip", async () => new TextEncoder().encode("hello"), /not a gzip/],
    ["another file", async () => gzipOf('{"hello":1}\n'), /not a Parley archive/],
    [
      "a row edited",
      async () => gzipOf((await textOf(archive)).replace(/"name": "[^"]*"/, '"name": "edited"')),
      /checksum/,
    ],
    [
      "a newer schema",
      async () =>
        gzipOf(
          (await textOf(archive)).replace(
            /"migrations":\d+,"last":"[^"]*","hash":"\w+"/,
            '"migrations":999,"last":"9999_future","hash":"ff"',
          ),
        ),
      /newer than this release/,
    ],
  ];
  for (const [name, make, message] of cases)
    test(`${name}: refused with a message saying so, and the target stays empty`, async () => {
      const target = await store(false);
      const error = await importArchive(target, streamOf(await make())).catch((e) => e);
      expect(error).toBeInstanceOf(ArchiveError);
      expect(error.message).toMatch(message);
      await migrate(target); // what the next start does: the store stays empty
      const copy = await harness({ store: target });
      expect(
        ((await copy.call("GET", "/v1/knowledge-bases", { key: await copy.admin() })).json as any).data?.length ?? 0,
      ).toBeLessThanOrEqual(1);
      expect((await copy.call("GET", "/v1/conversations", { key })).status).toBe(401);
    });
});

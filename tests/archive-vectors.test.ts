/**
 * An archive carries the passages' vectors with their model and length: imported, hybrid search
 * needs no backfill and the vectors are the same numbers. PGlite ships `vector`; the PostgreSQL
 * of CI has none (the import's refusal there is README's: it names the extension).
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { vector } from "@electric-sql/pglite-pgvector";
import { sql } from "drizzle-orm";
import { exportArchive, importArchive, openArchive } from "../src/db/archive/index.ts";
import { openPglite, type Store } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { rowsOf } from "../src/db/rows.ts";
import { countMissingEmbeddings, prepareVectorStore } from "../src/knowledge/embeddings/index.ts";
import { saveEmbeddings } from "../src/knowledge/embeddings/store.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { parseJsonl } from "../src/knowledge/parse.ts";
import { CORPUS, onPostgres, pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(60_000);

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops.splice(0)) await drop().catch(() => {});
});

/** A PGlite of the test's own with the `vector` extension loadable, migrated or not. */
async function vectorStore(migrated: boolean): Promise<Store> {
  const store = await openPglite(undefined, { loadDataDir: await pgliteImage(), extensions: { vector } });
  drops.push(() => store.close());
  if (migrated) await migrate(store);
  return store;
}

test.skipIf(onPostgres)(
  "vectors travel with their model and length; the imported store needs no backfill",
  async () => {
    const source = { store: await vectorStore(true) };
    const { docs } = parseJsonl(readFileSync(CORPUS, "utf8"), CORPUS);
    await ingestDocuments(source.store.db, docs.slice(0, 5));
    await prepareVectorStore(source.store.db, 3);
    const chunks = await rowsOf<{ id: string }>(source.store.db, sql`select id from chunks order by id`);
    // Values that must come back as the same float4s (their shortest text forms).
    const vector = (i: number) => [i / 7, -1 / 3, 0.1 + i * 1e-7];
    await saveEmbeddings(
      source.store.db,
      "test-model",
      chunks.map((c, i) => ({ chunkId: c.id, vector: vector(i) })),
    );
    const archive = new Uint8Array(await new Response(exportArchive(source.store)).arrayBuffer());
    const { header } = await openArchive(new Blob([archive]).stream());
    expect(header.embeddings).toEqual({ model: "test-model", dimensions: 3 });

    const target = { store: await vectorStore(false) };
    const report = await importArchive(target.store, new Blob([archive]).stream(), {
      prepare: (h, db) => prepareVectorStore(db, h.embeddings!.dimensions).then(() => {}),
    });
    expect(report.counts.chunk_embeddings).toBe(chunks.length);
    expect(await countMissingEmbeddings(target.store.db, "test-model")).toBe(0);
    const vectors = (db: typeof source.store.db) =>
      rowsOf<{ id: string; v: string }>(
        db,
        sql`select chunk_id as id, embedding::text as v from chunk_embeddings order by chunk_id`,
      );
    expect(await vectors(target.store.db)).toEqual(await vectors(source.store.db));
  },
);

/**
 * Hybrid search latency (BM25F + HNSW vector search, fused by RRF) at 1k, 10k and 100k
 * passages on PGlite with pgvector — the local PostgreSQL has no pgvector, and Parley refuses
 * hybrid search there. The corpus is bench/retrieval.ts's synthetic one; vectors are
 * feature-hashing vectors (as the tests' loopback model) of BENCH_HYBRID_DIMS (default 256)
 * computed in-process, so the figure is Parley's search — the statement pair and the fusion —
 * without the model's own time (a local model adds its embedding latency, once per search).
 *
 * `bun bench/hybrid.ts` (BENCH_HYBRID_SIZES=1000,10000 to choose sizes); prints JSON.
 */
import { vector } from "@electric-sql/pglite-pgvector";
import { sql } from "drizzle-orm";
import { openPglite } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import {
  backfillEmbeddings,
  createSemanticSearch,
  type Embedder,
  prepareVectorStore,
} from "../src/knowledge/embeddings/index.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { percentile } from "./lib.ts";
import { syntheticCorpus, syntheticQuestions } from "./retrieval.ts";

const DIMS = Number(process.env.BENCH_HYBRID_DIMS ?? 256);
const QUERIES = 200;

/** Feature hashing of words, L2-normalised: the loopback test model's scheme, in-process. */
function hashing(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 0x811c9dc5;
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
    v[h % DIMS]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const embedder: Embedder = {
  model: `hashing-${DIMS}`,
  dimensions: DIMS,
  embed: async (texts) => texts.map(hashing),
};

const sizes = (process.env.BENCH_HYBRID_SIZES ?? "1000,10000,100000").split(",").map(Number);
const all = syntheticCorpus(Math.max(...sizes));
const store = await openPglite(undefined, { extensions: { vector } });
await migrate(store);
await prepareVectorStore(store.db, DIMS);
const semantic = createSemanticSearch({ embedder });
const rows: Record<string, unknown>[] = [];
let have = 0;
for (const size of sizes) {
  const docs = all.slice(have / 5, size / 5);
  const t0 = performance.now();
  await ingestDocuments(store.db, docs);
  const t1 = performance.now();
  await backfillEmbeddings(store.db, embedder, { pageSize: 1000 });
  const t2 = performance.now();
  have = size;
  const qs = syntheticQuestions(all.slice(0, size / 5), QUERIES);
  for (const q of qs.slice(0, 20)) await searchPassages(store.db, q, [], {}, semantic);
  const hybrid: number[] = [];
  const bm25: number[] = [];
  let answered = 0;
  for (const q of qs) {
    let t = performance.now();
    const hits = await searchPassages(store.db, q, [], {}, semantic);
    hybrid.push(performance.now() - t);
    if (hits.length) answered++;
    t = performance.now();
    await searchPassages(store.db, q);
    bm25.push(performance.now() - t);
  }
  const [count] = (
    (await store.db.execute(sql`select count(*)::int as n from chunk_embeddings`)) as { rows: { n: number }[] }
  ).rows;
  const row = {
    passages: size,
    embedded: count!.n,
    dims: DIMS,
    ingestSeconds: +((t1 - t0) / 1000).toFixed(1),
    embedAndIndexSeconds: +((t2 - t1) / 1000).toFixed(1),
    hybridP50: +percentile(hybrid, 50).toFixed(2),
    hybridP99: +percentile(hybrid, 99).toFixed(2),
    bm25P50: +percentile(bm25, 50).toFixed(2),
    answered: answered / qs.length,
  };
  console.error(JSON.stringify(row));
  rows.push(row);
}
await store.close();
console.log(JSON.stringify({ store: "pglite (in memory) + pgvector HNSW", queries: QUERIES, rows }, null, 2));

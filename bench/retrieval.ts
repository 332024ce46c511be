/**
 * Retrieval at scale: search latency (p50/p99) at about 1k, 10k and 100k passages, on
 * PostgreSQL and on PGlite, and ingest throughput, over a synthetic corpus (a vocabulary with
 * Zipfian word frequencies, documents of headed sections). Queries are the search the agent
 * runs (`searchPassages`), phrased as questions built from a random document's words.
 *
 * Alone: `bun run bench:retrieval` (BENCH_RETRIEVAL_SIZES=1000,10000 to choose sizes);
 * prints JSON. Within `bun run bench` it is the `retrieval` section.
 */
import postgres from "postgres";
import { openPglite, openPostgres, type Store } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import type { KnowledgeDoc } from "../src/knowledge/parse.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { percentile } from "./lib.ts";

const PASSAGES_PER_DOC = 5;
const WORDS_PER_PASSAGE = 80;
const VOCABULARY = 30_000;
const QUERIES = 200;

/** A deterministic generator (mulberry32), so every run searches the same corpus. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pronounceable made-up words, and a sampler with Zipf's law (s = 1.07) over their ranks. */
function vocabulary(random: () => number) {
  const c = "bcdfghjklmnprstvz";
  const v = "aeiou";
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const syllables = 2 + Math.floor(random() * 3);
    let w = "";
    for (let i = 0; i < syllables; i++) w += c[Math.floor(random() * c.length)]! + v[Math.floor(random() * v.length)]!;
    words.add(w);
  }
  const list = [...words];
  const cdf: number[] = [];
  let sum = 0;
  for (let r = 1; r <= list.length; r++) {
    sum += 1 / r ** 1.07;
    cdf.push(sum);
  }
  const pick = () => {
    const x = random() * sum;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo]!;
  };
  return pick;
}

export function syntheticCorpus(passages: number, seed = 42): KnowledgeDoc[] {
  const random = rng(seed);
  const word = vocabulary(random);
  const words = (n: number) => Array.from({ length: n }, word).join(" ");
  return Array.from({ length: Math.ceil(passages / PASSAGES_PER_DOC) }, (_, d) => {
    const title = words(3);
    const sections = Array.from(
      { length: PASSAGES_PER_DOC },
      (_, s) => `${s ? `## ${words(2)}\n\n` : ""}${words(WORDS_PER_PASSAGE)}.`,
    );
    return { url: `https://synthetic.example/doc/${d}`, title, content: `# ${title}\n\n${sections.join("\n\n")}` };
  });
}

/** Questions as users write them: framing, two or three words of one document, one common word. */
export function syntheticQuestions(docs: KnowledgeDoc[], n: number, seed = 7): string[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => {
    const doc = docs[Math.floor(random() * docs.length)]!;
    const ws = doc.content.match(/[a-z]+/g)!;
    const some = Array.from({ length: 2 + Math.floor(random() * 2) }, () => ws[Math.floor(random() * ws.length)]);
    return `How do I ${some.join(" ")} with the ${ws[0]}?`;
  });
}

async function measure(store: Store, qs: string[]) {
  for (const q of qs.slice(0, 20)) await searchPassages(store.db, q); // warm caches and plans
  const lat: number[] = [];
  let found = 0;
  for (const q of qs) {
    const t0 = performance.now();
    const hits = await searchPassages(store.db, q);
    lat.push(performance.now() - t0);
    if (hits.length) found++;
  }
  return { p50: percentile(lat, 50), p99: percentile(lat, 99), answered: found / qs.length };
}

/** Grows one store through the sizes: ingest the difference (timed), then query. */
async function grow(store: Store, sizes: number[], log: (s: string) => void) {
  const all = syntheticCorpus(Math.max(...sizes));
  const out: Record<string, unknown>[] = [];
  let have = 0;
  for (const size of sizes) {
    const docs = all.slice(have / PASSAGES_PER_DOC, size / PASSAGES_PER_DOC);
    const t0 = performance.now();
    await ingestDocuments(store.db, docs);
    const seconds = (performance.now() - t0) / 1000;
    have = size;
    const stats = await measure(store, syntheticQuestions(all.slice(0, size / PASSAGES_PER_DOC), QUERIES));
    const row = { passages: size, ingestPassagesPerSecond: (docs.length * PASSAGES_PER_DOC) / seconds, ...stats };
    log(`${store.kind} ${JSON.stringify(row)}`);
    out.push(row);
  }
  return out;
}

export async function benchRetrieval(adminUrl: string, log: (s: string) => void = console.log) {
  const sizes = (process.env.BENCH_RETRIEVAL_SIZES ?? "1000,10000,100000").split(",").map(Number);
  const name = `parley_bench_retrieval_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const results: Record<string, unknown> = {};
  try {
    const pg = openPostgres(adminUrl.replace(/\/[^/]*$/, `/${name}`), { max: 2 });
    await migrate(pg);
    results.postgres = await grow(pg, sizes, log);
    await pg.close();
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  const lite = await openPglite(); // in memory: the bench measures search, not the disk
  await migrate(lite);
  results.pglite = await grow(lite, sizes, log);
  await lite.close();
  return { sizes, queries: QUERIES, ...results };
}

if (import.meta.main) {
  const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  console.log(JSON.stringify(await benchRetrieval(admin, (s) => console.error(s)), null, 2));
}

/**
 * `bun run bench:archive-memory [COPIES…]`: the memory an export takes as the store grows. For
 * each count, a throwaway PostgreSQL database (BENCH_PG_ADMIN_URL, default the local one) gets
 * the Hono corpus (../shared/corpora, or BENCH_CORPUS) ingested that many times, each copy in a
 * knowledge base of its own; then the whole archive is read to its end while the process's RSS
 * and JavaScript heap are sampled every 10 ms. Flat memory means the peaks barely move while the
 * archive grows. PostgreSQL, not PGlite: PGlite's database memory lives in the process too.
 */
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { exportArchive } from "../src/db/archive/index.ts";
import { openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { rowsOf } from "../src/db/rows.ts";
import { createKnowledgeBase, ingestDocuments } from "../src/knowledge/index.ts";
import { parseJsonl } from "../src/knowledge/parse.ts";

const adminUrl = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const corpus = process.env.BENCH_CORPUS ?? new URL("../../shared/corpora/hono-docs.jsonl", import.meta.url).pathname;
const counts = process.argv.slice(2).map(Number);
const { docs } = parseJsonl(readFileSync(corpus, "utf8"), corpus);
const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;

console.log(
  "| copies | passages | archive | export | RSS before | peak RSS | peak JS heap |\n|--:|--:|--:|--:|--:|--:|--:|",
);
for (const copies of counts.length ? counts : [28, 112]) {
  const name = `parley_bench_archive_${process.pid}_${copies}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = openPostgres(url.toString(), { max: 4 });
  try {
    await migrate(store);
    for (let i = 0; i < copies; i++) {
      const kb = await createKnowledgeBase(store.db, { name: `copy-${i}` });
      await ingestDocuments(store.db, docs, { kbId: kb.id });
    }
    const [row] = await rowsOf<{ n: number }>(store.db, sql`select count(*)::int as n from chunks`);
    const passages = Number(row?.n ?? 0);
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    let peak = before;
    let heap = 0;
    const sample = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss);
      heap = Math.max(heap, m.heapUsed);
    }, 10);
    let bytes = 0;
    const started = performance.now();
    for await (const chunk of exportArchive(store)) bytes += chunk.length;
    clearInterval(sample);
    const s = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`| ${copies} | ${passages} | ${mb(bytes)} | ${s} s | ${mb(before)} | ${mb(peak)} | ${mb(heap)} |`);
  } finally {
    await store.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/**
 * Ingest throughput over HTTP: the benchmark corpus posted as one ndjson stream to
 * POST /v1/knowledge_bases/:id/documents (admin key), on PostgreSQL (a throwaway database) and
 * on PGlite (a data folder on disk, as `serve` uses it). Passages/s = passages stored (the
 * knowledge base's passage_count) / the request's wall time; median of ROUNDS uploads, each into
 * a new knowledge base. The server listens in this process on 127.0.0.1.
 *
 * Corpus: BENCH_CORPUS, else ../shared/corpora/elysia-docs.jsonl when it is there, else the
 * repository's own tests/fixtures/kb.jsonl (so the bench runs from the repository alone).
 *
 *   bun bench/ingest-http.ts           JSON on stdout
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import postgres from "postgres";
import { createApp } from "../src/app/app.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { createLogger } from "../src/config/logger.ts";
import { openPglite, openPostgres, type Store } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";

const ROOT = join(import.meta.dir, "..");
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 5);

export function corpusPath(): string {
  const shared = join(ROOT, "../shared/corpora/elysia-docs.jsonl");
  return process.env.BENCH_CORPUS ?? (existsSync(shared) ? shared : join(ROOT, "tests/fixtures/kb.jsonl"));
}

async function measure(store: Store, body: string, log: (s: string) => void) {
  const app = createApp({ store, logger: createLogger("silent"), options: { rateLimit: false } });
  const srv = app.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${srv.server!.port}/v1`;
  const { secret } = await createKey(store.db, { name: "bench", plan: "pro", role: "admin" });
  const auth = { authorization: `Bearer ${secret}` };
  const rounds: { seconds: number; passages: number; documents: number }[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const kb = (await (
        await fetch(`${base}/knowledge_bases`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ name: `bench-${process.pid}-${i}` }),
        })
      ).json()) as { id: string };
      const t0 = performance.now();
      const res = await fetch(`${base}/knowledge_bases/${kb.id}/documents`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/x-ndjson" },
        body,
      });
      const result = (await res.json()) as { created: number; failed: number };
      const seconds = (performance.now() - t0) / 1000;
      if (res.status !== 200 || result.failed)
        throw new Error(`upload: ${res.status} ${JSON.stringify(result).slice(0, 300)}`);
      const counted = (await (await fetch(`${base}/knowledge_bases/${kb.id}`, { headers: auth })).json()) as {
        passage_count: number;
        document_count: number;
      };
      rounds.push({ seconds, passages: counted.passage_count, documents: counted.document_count });
      log(
        `round ${i + 1}: ${counted.document_count} documents, ${counted.passage_count} passages in ${seconds.toFixed(2)} s`,
      );
    }
  } finally {
    await srv.stop(true);
  }
  const rates = rounds.map((r) => r.passages / r.seconds).sort((a, b) => a - b);
  return {
    documents: rounds[0]!.documents,
    passages: rounds[0]!.passages,
    medianSeconds: [...rounds.map((r) => r.seconds)].sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!,
    passagesPerSecond: rates[Math.floor(rates.length / 2)]!,
    rounds: rounds.length,
  };
}

export async function benchIngestHttp(adminUrl: string, log: (s: string) => void = console.error) {
  const corpus = corpusPath();
  const body = readFileSync(corpus, "utf8");
  const out: Record<string, unknown> = { corpus: relative(ROOT, corpus), bytes: body.length };
  const name = `parley_bench_ingest_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  try {
    const pg = openPostgres(adminUrl.replace(/\/[^/]*$/, `/${name}`), { max: 10 });
    await migrate(pg);
    log("PostgreSQL");
    out.postgres = await measure(pg, body, log);
    await pg.close();
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  const dir = mkdtempSync(join(tmpdir(), "parley-bench-ingest-"));
  try {
    const lite = await openPglite(dir);
    await migrate(lite);
    log("PGlite (data folder)");
    out.pglite = await measure(lite, body, log);
    await lite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.main) {
  const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  console.log(JSON.stringify(await benchIngestHttp(admin), null, 2));
}

/**
 * `bun run bench`: Parley against the floor of its own stack, side by side, in one run.
 * Seeds its own data in a throwaway PostgreSQL database (and PGlite folders), cleans up, and
 * writes bench/results.json and bench/results.md. Loopback only; every load is time-bounded.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { findKeyBySecret } from "../src/auth/keys.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { benchIngest } from "./ingest.ts";
import { alternate, ensureWrk, ROOT, running, sideBySide, startServer, type WrkResult, wrk } from "./lib.ts";
import { benchRetrieval } from "./retrieval.ts";
import { benchChatFloor, benchPagination, benchStreaming } from "./sections.ts";
import { benchTtft } from "./ttft.ts";

const started = Date.now();
ensureWrk();
const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = `parley_bench_${process.pid}`;
const adminSql = postgres(admin, { max: 1, onnotice: () => {} });
await adminSql.unsafe(`create database ${dbName}`);
const dbUrl = admin.replace(/\/[^/]*$/, `/${dbName}`);
const tmp = mkdtempSync(join(tmpdir(), "parley-bench-"));
const results: Record<string, unknown> = {};
// BENCH_ONLY=streaming (etc.) runs one section while working on it; results files need a full run.
const only = process.env.BENCH_ONLY;
const want = (name: string) => !only || only.split(",").includes(name);
// BENCH_BASELINE=<another checkout>: sections that support it also measure that code (its own
// servers, on its own database migrated by it), alternating with this one: before/after in one run.
const baseline = process.env.BENCH_BASELINE;
const log = (s: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${s}`);

try {
  const store = openPostgres(dbUrl, { max: 4 });
  await migrate(store);
  const big = { plan: "enterprise" as const, rpm: 1_000_000_000, rpd: 1_000_000_000 };
  const { secret: key } = await createKey(store.db, { name: "bench", ...big });
  // 20 conversations so a page is full.
  const { id: keyId } = (await findKeyBySecret(store.db, key))!;
  const sql = postgres(dbUrl, { max: 4, onnotice: () => {} });
  await sql`insert into conversations (id, key_id, title, created_at, updated_at)
    select 'conv_1' || lpad(i::text, 25, '0'), ${keyId}, 'seed ' || i, now() - i * interval '1 second', now() - i * interval '1 second'
    from generate_series(1, 40) i`;

  if (want("overhead")) {
    log("1+2: GET /v1/conversations — limiter on/off, and Parley vs the floor (PostgreSQL)");
    const on = await startServer("bench/server.ts", { DATABASE_URL: dbUrl });
    const off = await startServer("bench/server.ts", { DATABASE_URL: dbUrl, RATE_LIMIT: "off" });
    const floor = await startServer("bench/floor.ts", { DATABASE_URL: dbUrl });
    // 64 keys taking turns, as many clients would; and one hot key, the per-key ceiling.
    const keys = [key, ...(await seedKeys(store, sql, 63))];
    const get =
      (s: { url: string }, ks = keys) =>
      () =>
        wrk(`${s.url}/v1/conversations?limit=20`, {
          seconds: 4,
          connections: 16,
          script: join(ROOT, "bench/keys.lua"),
          env: { BENCH_KEYS: ks.join(",") },
        });
    const getHot =
      (s: { url: string }, k = key) =>
      () =>
        wrk(`${s.url}/v1/conversations?limit=20`, {
          seconds: 4,
          connections: 16,
          headers: { authorization: `Bearer ${k}` },
        });
    const before = baseline ? await startBaseline() : undefined;
    const [limOn, limOff, bLimOn, bLimOff] = alternate(3, [
      get(on),
      get(off),
      ...(before ? [get(before.on, before.keys), get(before.off, before.keys)] : []),
    ]);
    const [hotOn, hotOff, bHotOn, bHotOff] = alternate(3, [
      getHot(on),
      getHot(off),
      ...(before ? [getHot(before.on, before.keys[0]), getHot(before.off, before.keys[0])] : []),
    ]);
    const overhead = sideBySide(3, get(on), get(floor));
    await Promise.all([on.stop(), off.stop(), floor.stop(), before?.on.stop(), before?.off.stop()]);
    const pair = (a: WrkResult, b: WrkResult) => ({ on: a, off: b, rpsRatio: a.rps / b.rps, p99Ratio: a.p99 / b.p99 });
    results.limiter = { ...pair(limOn!, limOff!), before: before ? pair(bLimOn!, bLimOff!) : undefined };
    results.limiterHotKey = { ...pair(hotOn!, hotOff!), before: before ? pair(bHotOn!, bHotOff!) : undefined };
    results.overhead = {
      parley: overhead.a,
      floor: overhead.b,
      rpsRatio: overhead.a.rps / overhead.b.rps,
      p99Ratio: overhead.b.p99 / overhead.a.p99,
    };
  }

  if (want("streaming")) {
    log("3: streaming — one 1,000-token reply; idle streams (BENCH_STREAMS, 10,000) and a broadcast");
    results.streaming = await benchStreaming(dbUrl, key);
  }
  if (want("pagination")) {
    log("4: pagination depth — 200,000 conversations under one key");
    results.pagination = await benchPagination(dbUrl, sql, store);
  }
  if (want("chat")) {
    log("5: non-stream chat with the retrieval agent, PostgreSQL and PGlite, vs the database's own floor");
    if (baseline) await adminSql.unsafe(`create database ${dbName}_chat_before`);
    results.chat = await benchChatFloor(
      dbUrl,
      sql,
      store,
      tmp,
      baseline ? { checkout: baseline, dbUrl: `${dbUrl}_chat_before` } : undefined,
    );
  }
  if (want("ttft")) {
    log("7: time to first token added by Parley (model agent vs the loopback provider called directly)");
    results.ttft = await benchTtft(dbUrl, key);
  }
  if (want("retrieval")) {
    log("8: retrieval at about 1k, 10k and 100k passages (synthetic corpus), PostgreSQL and PGlite");
    results.retrieval = await benchRetrieval(admin, log);
  }
  if (want("ingest")) {
    log("9: ingest through the CLI at 100k passages, PostgreSQL and PGlite");
    results.ingest = await benchIngest(admin, baseline, log);
  }
  if (want("binary")) {
    log("6: compiled binary");
    results.binary = await benchBinary(tmp);
  }
  await sql.end();
  await store.close();
} finally {
  await Promise.all([...running].map((s) => s.stop()));
  await adminSql.unsafe(`drop database if exists ${dbName} with (force)`);
  await adminSql.unsafe(`drop database if exists ${dbName}_before with (force)`);
  await adminSql.unsafe(`drop database if exists ${dbName}_chat_before with (force)`);
  await adminSql.end();
  rmSync(tmp, { recursive: true, force: true });
}

/** `n` more enterprise keys, each with `conversations` conversations; their secrets. */
async function seedKeys(
  store: { db: Parameters<typeof createKey>[0] },
  sql: postgres.Sql,
  n: number,
  conversations = 20,
) {
  const big = { plan: "enterprise" as const, rpm: 1_000_000_000, rpd: 1_000_000_000 };
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const { id, secret } = await createKey(store.db, { name: `bench${i}`, ...big });
    keys.push(secret);
    await sql`insert into conversations (id, key_id, title, created_at, updated_at)
      select 'conv_2' || lpad(i::text, 20, '0') || right(${id}, 5), ${id}, 'seed ' || i, now() - i * interval '1 second', now()
      from generate_series(1, ${conversations}) i`;
  }
  return keys;
}

/** The baseline's limiter on and off servers, on a database of its own it migrated, seeded like ours. */
async function startBaseline() {
  await adminSql.unsafe(`create database ${dbName}_before`);
  const url = `${dbUrl}_before`;
  const on = await startServer("bench/server.ts", { DATABASE_URL: url }, baseline);
  const off = await startServer("bench/server.ts", { DATABASE_URL: url, RATE_LIMIT: "off" }, baseline);
  const store = openPostgres(url, { max: 2 });
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  // As ours: the hot key with 40 conversations (a full page and a cursor), 63 more with 20.
  const keys = [...(await seedKeys(store, sql, 1, 40)), ...(await seedKeys(store, sql, 63))];
  await Promise.all([store.close(), sql.end()]);
  return { on, off, keys };
}

async function benchBinary(dir: string) {
  const bin = join(ROOT, "dist/parley");
  if (!(await Bun.file(bin).exists())) return { built: false };
  const dataDir = join(dir, "bin-data");
  const time = async () => {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    const t0 = performance.now();
    const p = Bun.spawn([bin, "serve"], {
      env: { PATH: "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "error" },
    });
    while (
      !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      await Bun.sleep(5);
    const ms = performance.now() - t0;
    p.kill("SIGTERM");
    await p.exited;
    return ms;
  };
  const firstStartMs = await time();
  const warm = [await time(), await time(), await time()].sort((a, b) => a - b);
  return { built: true, sizeMiB: Bun.file(bin).size / 1048576, firstStartMs, startToFirst200Ms: warm[1] };
}

const git = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
const meta = {
  date: new Date().toISOString(),
  commit: git,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30) },
  bun: Bun.version,
  durationSeconds: Math.round((Date.now() - started) / 1000),
};
if (only) {
  console.log(JSON.stringify(results, null, 2));
  if (process.env.BENCH_MERGE !== "1") process.exit(0);
  // BENCH_MERGE=1: put this run's sections into the last full run's results (their commit noted).
  const previous = JSON.parse(await Bun.file(join(ROOT, "bench/results.json")).text());
  const merged = {
    ...previous,
    ...results,
    sectionsFrom: { ...previous.sectionsFrom, ...Object.fromEntries(Object.keys(results).map((k) => [k, meta])) },
  };
  writeFileSync(join(ROOT, "bench/results.json"), `${JSON.stringify(merged, null, 2)}\n`);
  const { renderMarkdown, keptSections } = await import("./report.ts");
  const resultsMd = join(ROOT, "bench/results.md");
  writeFileSync(resultsMd, renderMarkdown(merged) + keptSections(await Bun.file(resultsMd).text()));
  process.exit(0);
}
writeFileSync(join(ROOT, "bench/results.json"), `${JSON.stringify({ ...meta, ...results }, null, 2)}\n`);
const { renderMarkdown, keptSections } = await import("./report.ts");
const resultsMd = join(ROOT, "bench/results.md");
writeFileSync(resultsMd, renderMarkdown({ ...meta, ...results }) + keptSections(await Bun.file(resultsMd).text()));
log(`done: bench/results.md, bench/results.json`);

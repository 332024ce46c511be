/**
 * One measured run of the web-source bench, in a process of its own (so its peak RSS is Parley's
 * alone, at one site size): `bun bench/sources-run.ts <site-origin> <pglite|postgres> [database-url]`.
 * Parley runs in process on a new store (the server's own opening code), politeness off and
 * private networks allowed. It adds the site as a source and times the first sync (POST → the
 * sync completed), a re-sync of the unchanged site, and a re-sync after 10% of the pages changed;
 * during each, RSS is sampled every 50 ms (process.memoryUsage.rss(), cheap: memoryUsage() walks the heap) and the kernel's high-water mark
 * (VmHWM, reset before each phase when /proc allows it) is read after it. Prints one JSON line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app/app.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import type { Env } from "../src/config/env.ts";
import { createLogger } from "../src/config/logger.ts";
import type { Source } from "../src/contract/sources.ts";
import { migrate } from "../src/db/migrate.ts";
import { openStoreFromEnv } from "../src/runtime/store.ts";

const [origin, kind, dbUrl] = process.argv.slice(2) as [string, "pglite" | "postgres", string | undefined];
const MiB = 1024 * 1024;

/** Peak RSS while `fn` runs: samples every 50 ms, and the kernel's high-water mark after it. */
async function measured<T>(fn: () => Promise<T>) {
  Bun.gc(true);
  const before = process.memoryUsage.rss();
  let hwmReset = true;
  try {
    writeFileSync("/proc/self/clear_refs", "5"); // resets VmHWM to the current RSS
  } catch {
    hwmReset = false;
  }
  let peak = before;
  let samples = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
    samples++;
  }, 50);
  // BENCH_SOURCES_LIVE_HEAP=1 (a diagnosis, it slows the sync): a full GC every second during the
  // phase, the largest heap left after one is what the sync holds live (its URL sets, the filter).
  let liveHeap = 0;
  const gcTimer =
    process.env.BENCH_SOURCES_LIVE_HEAP === "1"
      ? setInterval(() => {
          Bun.gc(true);
          liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
        }, 1_000)
      : undefined;
  const t0 = performance.now();
  const result = await fn();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  clearInterval(gcTimer);
  peak = Math.max(peak, process.memoryUsage.rss());
  // What stays live after the phase: a heap growing with the site would be held state, not garbage.
  Bun.gc(true);
  const heapAfterGcMiB = process.memoryUsage().heapUsed / MiB;
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024;
  return {
    result,
    seconds,
    rssBeforeMiB: before / MiB,
    peakRssMiB: peak / MiB,
    hwmMiB: hwmReset ? hwm / MiB : undefined,
    heapAfterGcMiB,
    liveHeapMiB: gcTimer ? liveHeap / MiB : undefined,
    samples,
  };
}

const dir = mkdtempSync(join(tmpdir(), "parley-sources-"));
const env = {
  DATA_DIR: join(dir, "data"),
  DATABASE_URL: kind === "postgres" ? dbUrl : undefined,
  DB_POOL_MAX: 10,
  DB_WAIT_MS: 5_000,
} as unknown as Env;
const store = await openStoreFromEnv(env, { command: "bench" });
try {
  await migrate(store);
  const app = createApp({
    store,
    logger: createLogger("silent"),
    options: { sources: { allowPrivateNetworks: true, politeness: false } },
  });
  const { secret } = await createKey(store.db, {
    name: "bench",
    plan: "enterprise",
    rpm: 1_000_000,
    rpd: 10_000_000,
    role: "admin",
  });
  const call = async (method: string, path: string, json?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
    if (json !== undefined) headers["content-type"] = "application/json";
    const res = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
      }),
    );
    const body = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const site = async (path: string, method = "GET") => (await fetch(`${origin}${path}`, { method })).json();
  const { pages } = (await site("/__stats")) as { pages: number };
  const kb = (await call("POST", "/v1/knowledge_bases", { name: "bench-site" })) as { id: string };
  const base = `/v1/knowledge_bases/${kb.id}/sources`;
  const read = async (id: string) => {
    const source = (await call("GET", `${base}/${id}`)) as Source;
    if (source.last_sync?.status !== "completed") throw new Error(`sync ended ${JSON.stringify(source.last_sync)}`);
    return source.last_sync;
  };

  let sourceId = "";
  const first = await measured(async () => {
    const created = (await call("POST", base, {
      url: `${origin}/`,
      max_pages: Math.min(100_000, pages * 2),
    })) as Source;
    sourceId = created.id;
    await app.parley.sources.idle();
    return read(sourceId);
  });
  const resync = async () => {
    await call("POST", `${base}/${sourceId}/sync`);
    await app.parley.sources.idle();
    return read(sourceId);
  };
  const stats0 = (await site("/__stats")) as { requests: number; notModified: number };
  const unchanged = await measured(resync);
  const stats1 = (await site("/__stats")) as { requests: number; notModified: number };
  const { changed } = (await site("/__change?fraction=0.1", "POST")) as { changed: number };
  const afterChange = await measured(resync);
  const phase = (m: Awaited<ReturnType<typeof measured>>) => ({ ...m, result: undefined, pages: m.result });
  console.log(
    JSON.stringify({
      store: kind,
      sitePages: pages,
      first: phase(first),
      unchanged: {
        ...phase(unchanged),
        siteRequests: stats1.requests - stats0.requests,
        site304s: stats1.notModified - stats0.notModified,
      },
      changed: { ...phase(afterChange), pagesChanged: changed },
    }),
  );
  await app.parley.close();
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

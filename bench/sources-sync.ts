/**
 * `bun run bench:sources`: web-source sync of a local documentation site, at several sizes
 * (BENCH_SOURCES_SIZES, default 250,1000,2000 pages), on PGlite (a new data folder) and on
 * PostgreSQL (a throwaway database, when BENCH_PG_ADMIN_URL or the default local one answers).
 * The site (sources-site.ts) and every measured run (sources-run.ts) are processes of their own:
 * the site's memory and CPU are not Parley's, and each run's peak RSS is one size's alone.
 * Writes bench/sources-results.md (BENCH_SOURCES_WRITE=0: JSON on stdout only). BENCH_BASELINE=<another
 * checkout> also runs that checkout's code (its sources-run.ts, copied there if missing) on the
 * same site, alternating with this one: before/after in one run.
 * Targets (the issue): 1,000 pages synced in ≤ 60 s, re-synced unchanged in ≤ 15 s, peak RSS not
 * growing with the site's size.
 */
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { ROOT } from "./lib.ts";
import { commitOf, type Run, report } from "./sources-report.ts";

const sizes = (process.env.BENCH_SOURCES_SIZES ?? "250,1000,2000").split(",").map(Number);
const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const started = Date.now();
const log = (s: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${s}`);

/** Starts the site with `pages` pages; its origin, and how to stop it. */
async function startSite(pages: number) {
  const proc = Bun.spawn(["bun", "bench/sources-site.ts", "--pages", String(pages)], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/ready (\d+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the site exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    origin: `http://127.0.0.1:${/ready (\d+)/.exec(out)![1]}`,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

const baseline = process.env.BENCH_BASELINE;
if (baseline && !existsSync(join(baseline, "bench/sources-run.ts")))
  copyFileSync(join(ROOT, "bench/sources-run.ts"), join(baseline, "bench/sources-run.ts"));

async function measure(origin: string, store: Run["store"], dbUrl?: string, cwd = ROOT): Promise<Run> {
  const proc = Bun.spawn(["bun", "bench/sources-run.ts", origin, store, ...(dbUrl ? [dbUrl] : [])], {
    cwd,
    env: { ...process.env, LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`sources-run.ts failed (${store}): ${out.slice(-2000)}`);
  return { code: cwd === ROOT ? "this" : "baseline", ...JSON.parse(out.trim().split("\n").pop()!) };
}

async function postgresReachable(): Promise<boolean> {
  const sql = postgres(admin, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end();
  }
}

// BENCH_SOURCES_STORES=postgres (or pglite) runs one store only.
const wanted = (process.env.BENCH_SOURCES_STORES ?? "pglite,postgres").split(",");
const reachable = wanted.includes("postgres") && (await postgresReachable());
const stores = (["pglite", "postgres"] as const).filter((s) => wanted.includes(s) && (s === "pglite" || reachable));
if (wanted.includes("postgres") && !reachable) log(`PostgreSQL not reachable at ${admin}: PGlite only`);
const runs: Run[] = [];
// With a baseline, which code runs first alternates from one configuration to the next.
let flip = false;
const checkouts = () => {
  if (!baseline) return [ROOT];
  flip = !flip;
  return flip ? [baseline, ROOT] : [ROOT, baseline];
};
for (const pages of sizes) {
  const site = await startSite(pages);
  try {
    for (const store of stores)
      for (const cwd of checkouts()) {
        log(`${store}, ${pages} pages${cwd === ROOT ? "" : " (baseline)"}`);
        if (store === "pglite") {
          runs.push(await measure(site.origin, store, undefined, cwd));
        } else {
          const name = `parley_bench_sources_${process.pid}_${pages}`;
          const sql = postgres(admin, { max: 1, onnotice: () => {} });
          await sql.unsafe(`create database ${name}`);
          try {
            runs.push(await measure(site.origin, store, admin.replace(/\/[^/]*$/, `/${name}`), cwd));
          } finally {
            await sql.unsafe(`drop database if exists ${name} with (force)`);
            await sql.end();
          }
        }
        const r = runs[runs.length - 1]!;
        log(
          `  first ${r.first.seconds.toFixed(1)} s (peak ${r.first.peakRssMiB.toFixed(0)} MiB), unchanged ${r.unchanged.seconds.toFixed(1)} s (${r.unchanged.pages.pages.not_modified} 304s), 10% changed ${r.changed.seconds.toFixed(1)} s (${r.changed.pages.pages.updated} updated)`,
        );
      }
  } finally {
    await site.stop();
  }
}

console.log(JSON.stringify(runs, null, 2));
if (process.env.BENCH_SOURCES_WRITE !== "0") {
  writeFileSync(join(ROOT, "bench/sources-results.md"), report(runs, { commit: commitOf(ROOT), baseline }));
  log("wrote bench/sources-results.md");
}

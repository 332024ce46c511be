/**
 * Where a web-source sync's CPU time goes: `bun bench/sources-profile.ts [pages] [pglite|postgres]`
 * (default 1000, pglite) runs sources-run.ts once under Bun's CPU profiler (first sync, re-sync
 * unchanged, re-sync after 10% changed, and the store's setup before them) and sums the samples'
 * self time by where the code lives: page-text extraction (linkedom, Readability, turndown and
 * src/sources/content), the crawl and fetch code, the ORM, the database engine or driver, the
 * knowledge code (ingest), and the rest. JSON on stdout. Not part of `bench:sources`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { ROOT } from "./lib.ts";

const pages = Number(process.argv[2] ?? 1000);
const store = (process.argv[3] ?? "pglite") as "pglite" | "postgres";
const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The bucket of one frame, by the file it runs in (self time: the frame on top of the stack). */
const BUCKETS: [string, RegExp][] = [
  ["page text: linkedom", /node_modules\/(linkedom|htmlparser2|domhandler|entities|css-select|nth-check|domutils)\//],
  ["page text: Readability", /@mozilla\/readability/],
  ["page text: turndown", /node_modules\/turndown/],
  ["page text: src/sources/content", /src\/sources\/content\//],
  ["crawl + fetch: src/sources/fetch, crawl.ts", /src\/sources\/(fetch\/|crawl|seeds)/],
  ["sync: src/sources (page-store, store-pass, sync)", /src\/sources\//],
  ["ingest: src/knowledge", /src\/knowledge\//],
  ["ORM: drizzle-orm", /drizzle-orm/],
  ["database: PGlite (JS + WASM)", /@electric-sql\/pglite|wasm:\/\//],
  ["database: postgres.js driver", /node_modules\/postgres\//],
  ["HTTP app: elysia", /node_modules\/elysia/],
];

function breakdown(profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const { url, functionName } = byId.get(id)!.callFrame;
    let bucket = BUCKETS.find(([, re]) => re.test(url))?.[0];
    if (!bucket)
      bucket =
        functionName === "(idle)"
          ? "idle (waiting: fetches, the PostgreSQL server)"
          : functionName === "(garbage collector)"
            ? "garbage collector"
            : url
              ? "other JS"
              : `native: ${functionName || "(anonymous)"}`;
    ms.set(bucket, (ms.get(bucket) ?? 0) + dt);
    total += dt;
  });
  // Native frames are many small ones: the largest are shown, the rest summed.
  const frames = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const { url, functionName } = byId.get(id)!.callFrame;
    const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(ROOT, "")}`;
    frames.set(key, (frames.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const rows = [...ms.entries()].sort((a, b) => b[1] - a[1]);
  const shown = rows.filter(([k, v]) => !k.startsWith("native:") || v > total * 0.02);
  const rest = rows.filter((r) => !shown.includes(r)).reduce((a, [, v]) => a + v, 0);
  return {
    totalSeconds: total / 1000,
    topFrames: [...frames.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([k, v]) => `${(v / 1000).toFixed(2)} s ${k}`),
    seconds: Object.fromEntries(
      [...shown, ["native: the rest", rest]].map(([k, v]) => [k, +(Number(v) / 1000).toFixed(2)]),
    ),
  };
}

const dir = mkdtempSync(join(tmpdir(), "parley-sources-prof-"));
const site = Bun.spawn(["bun", "bench/sources-site.ts", "--pages", String(pages)], { cwd: ROOT, stdout: "pipe" });
const sql = postgres(admin, { max: 1, onnotice: () => {} });
const db = `parley_bench_sources_prof_${process.pid}`;
try {
  const reader = site.stdout.getReader();
  let out = "";
  while (!/ready (\d+)/.test(out)) out += new TextDecoder().decode((await reader.read()).value);
  const origin = `http://127.0.0.1:${/ready (\d+)/.exec(out)![1]}`;
  if (store === "postgres") await sql.unsafe(`create database ${db}`);
  const args = ["bun", "--cpu-prof", `--cpu-prof-dir=${dir}`, "bench/sources-run.ts", origin, store];
  if (store === "postgres") args.push(admin.replace(/\/[^/]*$/, `/${db}`));
  const run = Bun.spawn(args, { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  const result = JSON.parse((await new Response(run.stdout).text()).trim().split("\n").pop()!);
  await run.exited;
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))!;
  const profile: Profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const phases = Object.fromEntries(
    ["first", "unchanged", "changed"].map((k) => [k, +(result[k].seconds as number).toFixed(1)]),
  );
  console.log(JSON.stringify({ pages, store, wallSeconds: phases, cpu: breakdown(profile) }, null, 2));
} finally {
  site.kill("SIGTERM");
  if (store === "postgres") await sql.unsafe(`drop database if exists ${db} with (force)`);
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Ingest throughput through the CLI, as users run it: `parley ingest corpus.jsonl` (a real
 * process: parse, split, store) on a new PostgreSQL database and on a new PGlite data folder,
 * the store migrated first (untimed). The corpus is retrieval.ts's synthetic one (five passages
 * per document). With a baseline checkout (BENCH_BASELINE) the same runs use its code too,
 * alternating, on their own stores: before/after in one run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { ROOT } from "./lib.ts";
import { syntheticCorpus } from "./retrieval.ts";

type Target = { kind: "postgres"; url: string } | { kind: "pglite"; dir: string };

function cli(checkout: string, target: Target, args: string[]) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), LOG_LEVEL: "error" };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  if (target.kind === "postgres") env.DATABASE_URL = target.url;
  else env.DATA_DIR = target.dir;
  const r = Bun.spawnSync(["bun", join(checkout, "src/main.ts"), ...args], { cwd: checkout, env, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`parley ${args.join(" ")} failed: ${r.stderr.toString().slice(-2000)}`);
}

/** Seconds `parley ingest` takes to load `file` into a new store. */
async function timeIngest(checkout: string, kind: Target["kind"], file: string, adminUrl: string, tmp: string) {
  const name = `parley_bench_ingest_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const target: Target =
    kind === "postgres"
      ? { kind, url: adminUrl.replace(/\/[^/]*$/, `/${name}`) }
      : { kind, dir: mkdtempSync(join(tmp, "pglite-")) };
  try {
    if (kind === "postgres") await admin.unsafe(`create database ${name}`);
    cli(checkout, target, ["migrate"]);
    const t0 = performance.now();
    cli(checkout, target, ["ingest", file]);
    return (performance.now() - t0) / 1000;
  } finally {
    if (kind === "postgres") await admin.unsafe(`drop database if exists ${name} with (force)`);
    else if (target.kind === "pglite") rmSync(target.dir, { recursive: true, force: true });
    await admin.end();
  }
}

export async function benchIngest(adminUrl: string, baseline: string | undefined, log: (s: string) => void) {
  const passages = Number(process.env.BENCH_INGEST_PASSAGES ?? 100_000);
  const tmp = mkdtempSync(join(tmpdir(), "parley-ingest-"));
  try {
    const file = join(tmp, "corpus.jsonl");
    writeFileSync(
      file,
      `${syntheticCorpus(passages)
        .map((d) => JSON.stringify(d))
        .join("\n")}\n`,
    );
    const out: Record<string, unknown> = { passages };
    for (const kind of ["postgres", "pglite"] as const) {
      const rate = async (checkout: string) => passages / (await timeIngest(checkout, kind, file, adminUrl, tmp));
      const after = await rate(ROOT);
      log(`ingest ${kind}: ${after.toFixed(0)} passages/s`);
      const before = baseline ? await rate(baseline) : undefined;
      if (before) log(`ingest ${kind} (baseline): ${before.toFixed(0)} passages/s`);
      out[kind] = { passagesPerSecond: after, before: before && { passagesPerSecond: before } };
    }
    return out;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  console.log(JSON.stringify(await benchIngest(admin, process.env.BENCH_BASELINE, console.error), null, 2));
}

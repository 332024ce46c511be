/**
 * `bun run archive:roundtrip [--corpus PATH] [--out FILE] [--conversations N] [--scale PASSAGES]
 * [--pg ADMIN_URL]`: a store built on real documentation (../shared/corpora/hono-docs.jsonl by
 * default) on PGlite, moved PGlite → PostgreSQL → PGlite by export and import, checked at every
 * step (rows per table, rows_sha256, search rankings, a transcript, a listing page and the page
 * after the first store's signed cursor, analytics, feedback, a fresh answer, the pro key's
 * usage), timed and sized; then a synthetic store of at least `--scale` passages (default
 * 100,000; 0 skips it) exported from both stores with the peak RSS sampled. Writes the report
 * (docs/archive-roundtrip.md) to --out, or prints it. Exits 1 when any step differs.
 * Temporary folders and databases are removed at the end. Not run by tests: the corpus is not
 * in the repository.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, parseJsonl } from "../src/mod.ts";
import { buildStore } from "./roundtrip/build.ts";
import { differences, type Probe, probe } from "./roundtrip/probe.ts";
import { report, type Step } from "./roundtrip/report.ts";
import { passagesOf, type ScaleRun, scaleRun } from "./roundtrip/scale.ts";
import { exportTo, importFrom, type OwnStore, pgliteIn, postgresDb, removeTemplate } from "./roundtrip/stores.ts";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
};
const corpus = arg("--corpus", join(import.meta.dir, "../../shared/corpora/hono-docs.jsonl"));
const out = arg("--out", "");
const conversations = Number(arg("--conversations", "300"));
const scaleTarget = Number(arg("--scale", "100000"));
const pgAdmin = arg("--pg", process.env.ROUNDTRIP_PG ?? "postgres://postgres@127.0.0.1:5432/postgres");
/** The PostgreSQL step runs in a database whose default time zone is not UTC, as many servers' is. */
const PG_TIME_ZONE = "America/New_York";

const log = (line: string) => console.error(line);
const work = mkdtempSync(join(tmpdir(), "parley-roundtrip-"));
const owned: OwnStore[] = [];
const dbName = (what: string) => `parley_roundtrip_${what}_${process.pid}`;
let failed = false;

try {
  const { docs, problems } = parseJsonl(readFileSync(corpus, "utf8"), corpus);
  if (problems.length) throw new Error(`${corpus}: ${problems.length} lines could not be read`);
  log(`building a store from ${corpus} (${docs.length} documents, ${conversations} conversations)`);
  const first = await pgliteIn("a");
  owned.push(first);
  await migrate(first.store);
  const built = await buildStore(first.store, docs, conversations);
  const passages = await passagesOf(first.store);
  const steps: Step[] = [];
  const stores = [
    { name: "PGlite (built)", open: async () => first },
    { name: `PostgreSQL 15 (TimeZone ${PG_TIME_ZONE})`, open: () => postgresDb(pgAdmin, dbName("b"), PG_TIME_ZONE) },
    { name: "PGlite (new folder)", open: () => pgliteIn("c") },
  ];
  let firstProbe: Probe | undefined;
  for (const [n, s] of stores.entries()) {
    const own = await s.open();
    if (own !== first) owned.push(own);
    log(`step ${n + 1}: ${s.name} (${Math.round(performance.now() / 1000)} s)`);
    const imported = n > 0 ? await importFrom(own.store, steps[n - 1]!.exported.file) : undefined;
    const exported = await exportTo(own.store, join(work, `step${n + 1}.parley.gz`));
    const seen = await probe(own.store, { ...built, cursor: firstProbe?.cursor });
    firstProbe ??= seen;
    steps.push({ name: s.name, kind: own.store.kind, imported, exported, probe: seen });
    await own.drop();
    owned.splice(owned.indexOf(own), 1);
  }
  const checks = steps.map((step, n) => {
    const base = steps[0]!;
    const differs = differences(base.probe, step.probe);
    if (!Bun.deepEquals(step.exported.trailer.counts, base.exported.trailer.counts)) differs.unshift("counts");
    if (step.imported && !Bun.deepEquals(step.imported.counts, steps[n - 1]!.exported.trailer.counts))
      differs.unshift("rows loaded");
    if (step.exported.trailer.rows_sha256 !== base.exported.trailer.rows_sha256) differs.unshift("rows_sha256");
    return differs;
  });
  failed = checks.some((c) => c.length > 0) || built.problems.length > 0;
  let scale: ScaleRun | undefined;
  if (scaleTarget > passages) {
    log(`scale: a store of at least ${scaleTarget} passages`);
    scale = await scaleRun(docs, scaleTarget, pgAdmin, dbName("scale"), work, log);
    failed ||= !scale.sameRows;
  }
  const text = report({ corpus, docs: docs.length, passages, built, steps, checks, scale });
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
  for (const [n, c] of checks.entries()) log(`step ${n + 1}: ${c.length ? `DIFFERS: ${c.join(", ")}` : "identical"}`);
  for (const p of built.problems) log(`build problem: ${p}`);
  if (scale && !scale.sameRows) log("scale: the PostgreSQL export's rows differ from the PGlite export's");
} catch (error) {
  failed = true;
  log(String((error as Error).stack ?? error));
} finally {
  for (const own of owned.splice(0)) await own.drop().catch((e) => log(`drop: ${e}`));
  removeTemplate();
  if (process.env.ROUNDTRIP_KEEP) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

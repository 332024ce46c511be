/**
 * bench/sources-results.md from the web-source bench's runs (sources-sync.ts). Alone, it renders
 * runs saved earlier: `bun bench/sources-report.ts runs.json` (sources-sync.ts's stdout).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib.ts";

export type Phase = {
  seconds: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  hwmMiB?: number;
  heapAfterGcMiB: number;
  liveHeapMiB?: number;
  pages: { pages: Record<string, number> };
};
export type Run = {
  code?: "this" | "baseline";
  store: "pglite" | "postgres";
  sitePages: number;
  first: Phase;
  unchanged: Phase & { siteRequests: number; site304s: number };
  changed: Phase & { pagesChanged: number };
};

/** The checkout's commit, and whether its working tree had changes (what was measured). */
export function commitOf(dir: string): string {
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], { cwd: dir })
      .stdout.toString()
      .trim();
  return `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--", "src") ? " + uncommitted changes in src/" : ""}`;
}

const f = (x: number | undefined, d = 1) => (x === undefined ? "–" : x.toFixed(d));
const peak = (p: Phase) => Math.max(p.peakRssMiB, p.hwmMiB ?? 0);
const STORE = { pglite: "PGlite (data folder, in process)", postgres: "PostgreSQL (local server)" };

/** The targets, judged on this checkout's runs. */
function verdicts(runs: Run[]): string[] {
  const mine = runs.filter((r) => r.code !== "baseline");
  const out: string[] = [];
  for (const store of ["pglite", "postgres"] as const) {
    const rs = mine.filter((r) => r.store === store).sort((a, b) => a.sitePages - b.sitePages);
    const at1000 = rs.find((r) => r.sitePages === 1000);
    if (at1000) {
      const first = at1000.first.seconds;
      const again = at1000.unchanged.seconds;
      out.push(
        `- ${STORE[store]}, 1,000 pages: first sync ${f(first)} s (≤ 60 s: ${first <= 60 ? "**met**" : "**missed**"}), re-sync unchanged ${f(again)} s with ${at1000.unchanged.pages.pages.not_modified} 304s (≤ 15 s: ${again <= 15 ? "**met**" : "**missed**"}).`,
      );
    }
    if (rs.length > 1) {
      const [small, large] = [rs[0]!, rs[rs.length - 1]!];
      out.push(
        `- ${STORE[store]}, ${small.sitePages} → ${large.sitePages} pages (${f(large.sitePages / small.sitePages, 0)}×): first-sync peak RSS ${f(peak(small.first), 0)} → ${f(peak(large.first), 0)} MiB, heap after a full GC ${f(small.first.heapAfterGcMiB)} → ${f(large.first.heapAfterGcMiB)} MiB.`,
      );
    }
  }
  return out;
}

export function report(runs: Run[], meta: { commit: string; baseline?: string; when?: Date }): string {
  const withCode = runs.some((r) => r.code === "baseline");
  const lines = [
    "# Web-source sync benchmark",
    "",
    `\`bun run bench:sources\` at ${meta.commit}${withCode ? ` (and a baseline checkout, BENCH_BASELINE${meta.baseline ? ` ${meta.baseline}` : ""}, alternating)` : ""}, ${(meta.when ?? new Date()).toISOString().slice(0, 16)}Z: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Bun ${Bun.version}. One run per row, on a machine shared with other work: timings vary by ±30% from run to run. Method and analysis: README.md, "Web-source sync".`,
    "",
    "Targets (the issue): 1,000 pages synced in ≤ 60 s with politeness off, re-synced unchanged in ≤ 15 s; memory not growing with the site's size.",
    "",
    ...verdicts(runs),
    "",
    "Peak RSS: the highest of process.memoryUsage.rss() sampled every 50 ms and the kernel's VmHWM (reset before each phase). RSS before: after setup (store opened and migrated), before the POST. Heap after GC: JS heap (PGlite's WASM memory included) after a full GC at the end of the first sync.",
    "",
  ];
  for (const store of new Set(runs.map((r) => r.store))) {
    lines.push(
      `## ${STORE[store]}`,
      "",
      `| pages |${withCode ? " code |" : ""} first sync s | created | re-sync unchanged s | 304s | 10% changed s | updated | RSS before MiB | peak RSS MiB: first / re-sync / 10% | heap after GC MiB |`,
      `| ---: |${withCode ? " --- |" : ""} ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
    );
    for (const r of runs.filter((x) => x.store === store)) {
      const c = withCode ? ` ${r.code} |` : "";
      const p = r.first.pages.pages;
      lines.push(
        `| ${r.sitePages} |${c} ${f(r.first.seconds)} | ${p.created} | ${f(r.unchanged.seconds)} | ${r.unchanged.pages.pages.not_modified} | ${f(r.changed.seconds)} | ${r.changed.pages.pages.updated} | ${f(r.first.rssBeforeMiB, 0)} | ${f(peak(r.first), 0)} / ${f(peak(r.unchanged), 0)} / ${f(peak(r.changed), 0)} | ${f(r.first.heapAfterGcMiB)} |`,
      );
    }
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: bun bench/sources-report.ts runs.json");
  const runs: Run[] = JSON.parse(readFileSync(file, "utf8"));
  const when = statSync(file).mtime;
  writeFileSync(join(ROOT, "bench/sources-results.md"), report(runs, { commit: commitOf(ROOT), when }));
}

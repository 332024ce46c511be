/**
 * `bun scripts/readme-figures.ts [--write | --check] [name…]`: README's sizes and times, measured.
 * README holds each between markers, `<!-- figure: NAME -->128 MiB<!-- /figure -->`; the
 * measurements are scripts/figure-measures.ts. With no flag it prints README's value next to
 * the measured one; `--write` puts the measured values into README; `--check` (CI, after
 * `bun run build`) fails when a value is outside its tolerance, or a marker names no figure.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIGURES, type Figure } from "./figure-measures.ts";

const README = join(import.meta.dir, "../README.md");
const MARKER = /<!-- figure: ([\w-]+) -->(.*?)<!-- \/figure -->/g;

/** The figures README holds, in order: name and the text between the markers. */
export function figuresIn(readme: string): { name: string; text: string }[] {
  return [...readme.matchAll(MARKER)].map((m) => ({ name: m[1]!, text: m[2]! }));
}

/** README with the given figures' texts replaced (the others as they were). */
export function withFigures(readme: string, values: Record<string, string>): string {
  return readme.replace(MARKER, (all, name: string) =>
    name in values ? `<!-- figure: ${name} -->${values[name]}<!-- /figure -->` : all,
  );
}

/**
 * Whether README's `stated` is close enough to `measured` (same unit required).
 * Sizes: within ±10%. README rounds them (whole MiB, KB, MB) and they drift a little with every
 * code or dependency change; a tenth is past rounding and drift: the number a reader plans with
 * (disk, download) is then wrong, so CI fails until `--write` updates it.
 * Times: within a factor of 4. They are measured (the fastest of three runs) on a shared 2-core
 * machine whose load moves the same start by a factor of 2 or more between quiet and busy
 * minutes (0.5 to 1.9 s seen for one build, and figures written on a busy machine — 1.7 s —
 * failed a factor of 3 on a quiet one — 0.5 s); a tighter rule fails CI on the load, not on
 * Parley. Write them (`--write`) on a quiet machine.
 */
export function close(kind: Figure["kind"], stated: string, measured: string): boolean {
  const unit = (s: string) => s.replace(/^[\d.,\s]+/, "");
  if (unit(stated) !== unit(measured)) return false;
  const [a, b] = [stated, measured].map((s) => Number.parseFloat(s.replace(/,/g, "")));
  if (!(a! > 0 && b! > 0)) return false;
  return kind === "size" ? Math.abs(a! - b!) <= 0.1 * b! : a! / b! <= 4 && b! / a! <= 4;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const mode = args.includes("--write") ? "write" : args.includes("--check") ? "check" : "show";
  const wanted = args.filter((a) => !a.startsWith("--"));
  const readme = readFileSync(README, "utf8");
  const stated = new Map(figuresIn(readme).map((f) => [f.name, f.text]));
  const problems: string[] = [];
  for (const name of stated.keys()) if (!FIGURES[name]) problems.push(`README's figure ${name} has no measurement`);
  const measured: Record<string, string> = {};
  for (const [name, figure] of Object.entries(FIGURES)) {
    if (wanted.length && !wanted.includes(name)) continue;
    const was = stated.get(name);
    if (was === undefined) {
      problems.push(`README has no figure ${name}`);
      continue;
    }
    measured[name] = await figure.measure();
    const ok = close(figure.kind, was, measured[name]);
    const verdict = ok ? "ok" : "OUT OF TOLERANCE";
    console.log(`${name}: README ${was}, measured ${measured[name]} (${verdict}): ${figure.what}`);
    if (!ok) problems.push(`${name}: README says ${was}, measured ${measured[name]}`);
  }
  if (mode === "write") {
    writeFileSync(README, withFigures(readme, measured));
    console.log(`README.md: ${Object.keys(measured).length} figure(s) written`);
  }
  const left = mode === "write" ? problems.filter((p) => !p.includes(": README says ")) : problems;
  if (left.length) {
    console.log(`readme-figures: ${left.length} problem(s) (\`bun scripts/readme-figures.ts --write\` after a build):`);
    for (const p of left) console.log(`  ${p}`);
  } else if (mode !== "write") console.log("readme-figures: every figure within its tolerance");
  if (mode !== "show" && left.length) process.exit(1);
}

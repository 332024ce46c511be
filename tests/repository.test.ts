/**
 * What is committed stays readable: no tracked file outside vendor/ over 1 MB (a doc corrupted to
 * 31 MB once landed unnoticed) and the map, docs/architecture.md, under 100 KB.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";

setDefaultTimeout(30_000);

const ROOT = join(import.meta.dir, "..");
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_MAP_BYTES = 100 * 1024;

/** Tracked files (git ls-files); a checkout without git (an unpacked tarball) lists nothing. */
function trackedFiles(): string[] {
  const run = Bun.spawnSync(["git", "ls-files", "-z"], { cwd: ROOT, stderr: "ignore" });
  if (run.exitCode !== 0) return [];
  return run.stdout.toString().split("\0").filter(Boolean);
}

/** The tracked files over the limit, outside vendor/ (third-party bundles the binary embeds). */
export function oversized(files: string[], sizeOf: (path: string) => number): string[] {
  return files.filter((f) => !f.startsWith("vendor/") && sizeOf(f) > MAX_FILE_BYTES);
}

test("no tracked file outside vendor/ is over 1 MB", () => {
  const sizeOf = (f: string) => (existsSync(join(ROOT, f)) ? statSync(join(ROOT, f)).size : 0);
  expect(oversized(trackedFiles(), sizeOf)).toEqual([]);
});

test("the size rule catches a file over 1 MB and spares vendor/", () => {
  const sizes: Record<string, number> = { "docs/a.md": 31e6, "vendor/x.js": 4e6, "src/b.ts": 10 };
  expect(oversized(Object.keys(sizes), (f) => sizes[f]!)).toEqual(["docs/a.md"]);
});

test("docs/architecture.md stays under 100 KB", () => {
  expect(statSync(join(ROOT, "docs/architecture.md")).size).toBeLessThan(MAX_MAP_BYTES);
});

/**
 * `bun run build`: compiles the CLI + server into one self-contained binary, dist/parley (PGlite's
 * wasm/data files and the migrations are embedded), then prints its size and how long it takes
 * from start to the first 200 on /healthz — on a fresh data folder (PGlite initdb) and on an
 * existing one. These are benchmark figures, not pass/fail thresholds.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startToFirst200 } from "./binary-start.ts";

const out = resolve("dist/parley");
// No --minify: it breaks Elysia hooks that use rest parameters (elysia#1711).
// pgvector's bundle rides along as an extra entry point (Bun.embeddedFiles; runtime/pglite-assets.ts).
const vectorBundle = join(import.meta.dir, "../node_modules/@electric-sql/pglite-pgvector/dist/vector.tar.gz");
const build = Bun.spawnSync(["bun", "build", "--compile", "src/main.ts", vectorBundle, "--outfile", out], {
  stdout: "inherit",
  stderr: "inherit",
});
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const dir = mkdtempSync(join(tmpdir(), "parley-build-"));
try {
  const cold = await startToFirst200(out, join(dir, "data"));
  const warm = await startToFirst200(out, join(dir, "data"));
  const mb = (statSync(out).size / 1024 / 1024).toFixed(1);
  console.log(
    `dist/parley: ${mb} MiB; start to first 200: ${cold.toFixed(0)} ms on a new data folder, ${warm.toFixed(0)} ms on an existing one`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

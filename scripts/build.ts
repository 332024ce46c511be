/**
 * `bun run build`: compiles the CLI + server into one self-contained binary, dist/parley (PGlite's
 * wasm/data files and the migrations are embedded), then prints its size and how long it takes
 * from start to the first 200 on /healthz — on a fresh data folder (PGlite initdb) and on an
 * existing one. These are benchmark figures, not pass/fail thresholds.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const out = resolve("dist/parley");
// No --minify: it breaks Elysia hooks that use rest parameters (elysia#1711).
// pgvector's bundle rides along as an extra entry point (Bun.embeddedFiles; runtime/pglite-assets.ts).
const vectorBundle = join(import.meta.dir, "../node_modules/@electric-sql/pglite-pgvector/dist/vector.tar.gz");
const build = Bun.spawnSync(["bun", "build", "--compile", "src/main.ts", vectorBundle, "--outfile", out], {
  stdout: "inherit",
  stderr: "inherit",
});
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

async function startToFirst200(dataDir: string): Promise<number> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const t0 = performance.now();
  const proc = Bun.spawn([out, "serve"], {
    env: { PATH: "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    for (;;) {
      if (performance.now() - t0 > 60_000) throw new Error("binary did not answer within 60 s");
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - t0;
      await Bun.sleep(10);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), "parley-build-"));
try {
  const cold = await startToFirst200(join(dir, "data"));
  const warm = await startToFirst200(join(dir, "data"));
  const mb = (statSync(out).size / 1024 / 1024).toFixed(1);
  console.log(
    `dist/parley: ${mb} MiB; start to first 200: ${cold.toFixed(0)} ms on a new data folder, ${warm.toFixed(0)} ms on an existing one`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * How long the compiled binary takes from start to its first 200 on /healthz: measured by
 * `bun run build` (scripts/build.ts prints it) and by scripts/readme-figures.ts (README's figures),
 * the same way.
 */

/** Starts `bin serve` on `dataDir` (a new folder: PGlite's initdb; an existing one: none) and times it. */
export async function startToFirst200(bin: string, dataDir: string): Promise<number> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const t0 = performance.now();
  const proc = Bun.spawn([bin, "serve"], {
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

/**
 * `bun run build:console`: bundles the console (console/, Preact) with Bun's own bundler into
 * vendor/console/ (index.html, console.js, console.css), which is committed: `bun start` and the
 * compiled binary serve it with no build step, and tests/console-bundle.test.ts fails when the
 * committed bundle differs from what its sources build to. `--check` builds in memory and compares.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
export const OUT = join(root, "vendor/console");

/** The console's files as the build makes them: name → contents. */
export async function buildConsole(): Promise<Record<string, string>> {
  const result = await Bun.build({
    entrypoints: [join(root, "console/main.tsx")],
    target: "browser",
    format: "esm",
    minify: true,
    tsconfig: join(root, "console/tsconfig.json"),
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "console build failed");
  const js = await result.outputs.find((o) => o.kind === "entry-point")!.text();
  return {
    "index.html": readFileSync(join(root, "console/index.html"), "utf8"),
    "console.js": js,
    "console.css": readFileSync(join(root, "console/style.css"), "utf8"),
  };
}

if (import.meta.main) {
  const files = await buildConsole();
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [name, text] of Object.entries(files)) {
    const path = join(OUT, name);
    const gz = Bun.gzipSync(new TextEncoder().encode(text)).length;
    if (check) {
      let old = "";
      try {
        old = readFileSync(path, "utf8");
      } catch {}
      if (old !== text) stale++;
    } else writeFileSync(path, text);
    console.log(`vendor/console/${name}: ${text.length} bytes, ${gz} gzipped`);
  }
  if (stale) {
    console.error(`${stale} file(s) differ from their sources: run bun run build:console`);
    process.exit(1);
  }
}

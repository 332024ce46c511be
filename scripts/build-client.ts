/**
 * `bun run build:client` (also the client package's `prepack`): builds packages/client, the
 * `parley-client` npm package, from src/client —
 *   dist/index.js   one ES module, Web-standard APIs only, eventsource-parser bundled in;
 *   dist/types/     .d.ts for each source file (tsc), import specifiers rewritten to `.js`.
 * The client is its own package so installing it does not bring the server (see README).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
export const CLIENT_PACKAGE = join(root, "packages/client");

/** Builds the client package into `pkgDir` (default packages/client); returns its dist folder. */
export async function buildClient(pkgDir = CLIENT_PACKAGE): Promise<string> {
  const dist = join(pkgDir, "dist");
  rmSync(dist, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [join(root, "src/client/index.ts")],
    outdir: dist,
    naming: "index.js",
    target: "browser",
    format: "esm",
    throw: false,
  });
  if (!result.success) throw new AggregateError(result.logs, "building the client failed");
  const types = join(dist, "types");
  const tsc = Bun.spawnSync(
    [
      process.execPath,
      join(root, "node_modules/typescript/bin/tsc"),
      "--ignoreConfig",
      join(root, "src/client/index.ts"),
      "--declaration",
      "--emitDeclarationOnly",
      "--outDir",
      types,
      "--rootDir",
      join(root, "src"),
      "--allowImportingTsExtensions",
      "--target",
      "es2022",
      "--module",
      "esnext",
      "--moduleResolution",
      "bundler",
      "--lib",
      "es2022,dom,dom.iterable",
      "--strict",
      "--skipLibCheck",
      "--types",
      "",
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (tsc.exitCode !== 0) throw new Error(`tsc (declarations) failed:\n${tsc.stdout}${tsc.stderr}`);
  // Node's resolution (nodenext) needs the emitted files' real extension in relative imports.
  for (const file of walk(types)) {
    const text = readFileSync(file, "utf8").replace(/(from\s+["']\.{1,2}\/[^"']+)\.ts(["'])/g, "$1.js$2");
    writeFileSync(file, text);
  }
  return dist;
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (p.endsWith(".d.ts")) yield p;
  }
}

if (import.meta.main) {
  mkdirSync(CLIENT_PACKAGE, { recursive: true });
  console.log(`built ${await buildClient(process.argv[2])}`);
}

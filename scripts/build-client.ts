/**
 * `bun run build:client` (also run by `prepack`): bundles the typed client, `parley/client`, into
 * one ES module, dist/client/index.js, for runtimes that do not run TypeScript from node_modules
 * (Node, bundlers). Web-standard APIs only, eventsource-parser bundled in, no imports left.
 * Bun and Deno import src/client/index.ts directly (package.json "exports" conditions).
 */
import { join } from "node:path";

const root = join(import.meta.dir, "..");

/** Builds the client into `outdir` (default dist/client); returns the built file's path. */
export async function buildClient(outdir = join(root, "dist/client")): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(root, "src/client/index.ts")],
    outdir,
    naming: "index.js",
    target: "browser",
    format: "esm",
    sourcemap: "linked",
    throw: false,
  });
  if (!result.success) throw new AggregateError(result.logs, "building the client failed");
  const out = result.outputs.find((o) => o.kind === "entry-point");
  if (!out) throw new Error("building the client produced no entry point");
  return out.path;
}

if (import.meta.main) {
  const path = await buildClient(process.argv[2]);
  console.log(`built ${path}`);
}

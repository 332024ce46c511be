/**
 * PGlite's wasm and data files, imported as files so `bun build --compile` embeds them
 * (it does not follow PGlite's own runtime file lookups). In development the imports resolve to
 * node_modules paths; in the binary, to embedded files. Bun-only.
 */

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Extension, PGliteOptions } from "@electric-sql/pglite";
import initdbWasm from "@electric-sql/pglite/initdb.wasm" with { type: "file" };
import pgliteData from "@electric-sql/pglite/pglite.data" with { type: "file" };
import pgliteWasm from "@electric-sql/pglite/pglite.wasm" with { type: "file" };
import { vector } from "@electric-sql/pglite-pgvector";

export async function pgliteAssets(): Promise<PGliteOptions> {
  const [wasm, initdb] = await Promise.all([
    WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
    WebAssembly.compile(await Bun.file(initdbWasm).arrayBuffer()),
  ]);
  return { pgliteWasmModule: wasm, initdbWasmModule: initdb, fsBundle: Bun.file(pgliteData) } as PGliteOptions;
}

/**
 * pgvector for PGlite. Its package finds its bundle beside its own module, which the compiled
 * binary does not have: scripts/build.ts embeds the bundle (an extra entry point, listed in
 * Bun.embeddedFiles), and the binary copies it into `dir` (PGlite reads a bundle through `fs`,
 * which does not see embedded files) and loads it from there. Elsewhere, the package's own lookup.
 */
export async function vectorExtension(dir: string): Promise<Extension> {
  const embedded = (Bun.embeddedFiles as (Blob & { name?: string })[]).find(
    (f) => /^vector\.tar.*\.gz$/.test(f.name ?? ""), // e.g. vector.tar-qwa084wx.gz
  );
  if (!embedded) return vector;
  const path = join(dir, "pgvector.tar.gz");
  if ((await Bun.file(path).exists()) === false || Bun.file(path).size !== embedded.size)
    await Bun.write(path, embedded);
  return {
    name: "vector",
    setup: async (_pg, emscriptenOpts) => ({ emscriptenOpts, bundlePath: pathToFileURL(path) }),
  };
}

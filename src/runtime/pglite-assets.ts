/**
 * PGlite's wasm and data files, imported as files so `bun build --compile` embeds them
 * (it does not follow PGlite's own runtime file lookups). In development the imports resolve to
 * node_modules paths; in the binary, to embedded files. Bun-only.
 */

import type { PGliteOptions } from "@electric-sql/pglite";
import initdbWasm from "@electric-sql/pglite/initdb.wasm" with { type: "file" };
import pgliteData from "@electric-sql/pglite/pglite.data" with { type: "file" };
import pgliteWasm from "@electric-sql/pglite/pglite.wasm" with { type: "file" };

export async function pgliteAssets(): Promise<PGliteOptions> {
  const [wasm, initdb] = await Promise.all([
    WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
    WebAssembly.compile(await Bun.file(initdbWasm).arrayBuffer()),
  ]);
  return { pgliteWasmModule: wasm, initdbWasmModule: initdb, fsBundle: Bun.file(pgliteData) } as PGliteOptions;
}

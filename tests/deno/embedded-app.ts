/**
 * An app that embeds Parley, run unchanged on Bun and on Deno by tests/process/library-lock.test.ts:
 * it opens the PGlite folder given as its argument with `openPglite`, migrates it, mounts
 * `createParley`, prints `{"ready":true,"pid":…}` and runs until SIGTERM, when it closes the
 * plugin and the store (exit 0). When the folder is held by another process it prints the error
 * on stderr and exits 3.
 * Run: bun tests/deno/embedded-app.ts DIR/pg   or   deno run -A tests/deno/embedded-app.ts DIR/pg
 */
import process from "node:process";
import { Elysia } from "elysia";
import { createParley, listKeys, migrate, openPglite, type Store } from "../../src/mod.ts";

const folder = process.argv[2];
if (!folder) throw new Error("usage: embedded-app.ts PGLITE_FOLDER");

let store: Store;
try {
  store = await openPglite(folder);
} catch (error) {
  console.error(`refused: ${(error as Error).message}`);
  process.exit(3);
}
await migrate(store);
const parley = createParley({ store });
new Elysia().use(parley);
const keys = await listKeys(store.db);
console.log(JSON.stringify({ ready: true, pid: process.pid, keys: keys.length }));

process.on("SIGTERM", async () => {
  await parley.close();
  await store.close();
  process.exit(0);
});
// Keeps the event loop alive until the signal.
setInterval(() => {}, 60_000);

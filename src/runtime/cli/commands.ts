/**
 * The store commands (`migrate`, `keys …`, `ingest …`), run the same way by the CLI on a store
 * it opened itself and by a running server for a CLI that forwarded them (admin.ts): output
 * goes through `Io`, so both print exactly the same lines. Bun/Node-only: CLI and server only.
 */
import type { Db, Store } from "../../db/client.ts";
import { migrate } from "../../db/migrate.ts";
import { ingestCommand } from "./ingest.ts";
import type { Io } from "./io.ts";
import { keysCommand } from "./keys.ts";

export const STORE_COMMANDS = ["migrate", "keys", "ingest"] as const;

/** Runs one store command; its exit code. Errors are thrown (the caller prints `error: …`, exit 1). */
export async function runStoreCommand(store: Store & { describe: string }, command: string, rest: string[], io: Io): Promise<number> {
  await migrate(store);
  if (command === "migrate") {
    io.out(`migrations applied (${store.describe})`);
    return 0;
  }
  return command === "keys" ? keysCommand(store, rest, io) : ingestCommand(store, rest, io);
}

/**
 * `store` for a command: a transaction (one per ingested document) first lets the event loop
 * turn every 20 ms or so, and none starts once `stopped()` names a reason. PGlite's statements
 * chain through microtasks only, so without the turn a signal (or a forwarding CLI's Ctrl-C)
 * would not be heard before the whole ingest ended. The refusal is an administrator shutdown
 * (SQLSTATE 57P01), which the commands treat as the store going away: they stop instead of
 * trying the next document.
 */
export function interruptibleStore<S extends Store>(store: S, stopped: () => string | undefined): S {
  let turned = performance.now();
  const db: Db = Object.create(store.db);
  db.transaction = (async (...args: Parameters<Db["transaction"]>) => {
    if (performance.now() - turned > 20) {
      await new Promise((r) => setImmediate(r));
      turned = performance.now();
    }
    const reason = stopped();
    if (reason) throw Object.assign(new Error(`interrupted by ${reason}`), { code: "57P01" });
    return store.db.transaction(...args);
  }) as Db["transaction"];
  return { ...store, db };
}

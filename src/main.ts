#!/usr/bin/env bun
/**
 * The one command-line entry: `serve`, `migrate`, `keys …`, `ingest …`.
 * The environment is validated before anything else; a bad value stops here.
 */
import { ingestCommand } from "./cli/ingest.ts";
import { keysCommand } from "./cli/keys.ts";
import { CLOSE_TIMEOUT_MS, closeWithin, openStoreFromEnv } from "./cli/store.ts";
import { loadEnv } from "./config/env.ts";
import type { Db, Store } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { serve } from "./server.ts";

const USAGE = `usage: parley <command>
  serve                 migrate, then serve the API (default store: PGlite in DATA_DIR)
  migrate               apply database migrations
  keys create|list|revoke|update ...
  ingest PATH...        load knowledge-base documents (.jsonl, .md, .txt)
  healthcheck           exit 0 when the server on PORT answers /healthz (for containers)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (!["serve", "migrate", "keys", "ingest", "healthcheck"].includes(command)) {
    console.error(`unknown command '${command}'\n${USAGE}`);
    return 2;
  }
  const env = loadEnv(process.env);
  if (command === "healthcheck") {
    const res = await fetch(`http://127.0.0.1:${env.PORT}/healthz`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    return res?.ok ? 0 : 1;
  }
  if (command === "serve") {
    await serve(env);
    return -1; // keeps running
  }
  const opening = openStoreFromEnv(env);
  interruptible(command, opening);
  const store = interruptibleStore(await opening);
  if (interrupted) return -1; // the signal handler closes the store and exits
  try {
    await migrate(store);
    if (command === "migrate") {
      console.log(`migrations applied (${store.describe})`);
      return 0;
    }
    return command === "keys" ? await keysCommand(store, rest) : await ingestCommand(store, rest);
  } finally {
    await store.close(); // the same close as the signal handler's, if it started one
  }
}

/** The exit code after an interrupting signal, as shells report it (128 + the signal's number). */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };
let interrupted: NodeJS.Signals | undefined;

/**
 * SIGINT/SIGTERM during a store command (keys, ingest, migrate) — including while PGlite creates
 * a new folder — closes the store once the running statement or transaction is done (PGlite) or
 * within 5 s (PostgreSQL pool), then exits 130 (SIGINT) or 143 (SIGTERM). The interrupted command
 * stops there: an ingest keeps the documents already stored (run it again for the rest; a URL
 * already present is replaced). Exit 1 when closing fails or hangs past CLOSE_TIMEOUT_MS.
 */
function interruptible(command: string, opening: ReturnType<typeof openStoreFromEnv>): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return; // already closing; the close is bounded
    interrupted = signal;
    console.error(`${signal}: stopping ${command} after the current statement, then closing the store`);
    void (async () => {
      let code = SIGNAL_EXIT[signal] ?? 1;
      try {
        const opened = await opening;
        if ((await closeWithin(opened, CLOSE_TIMEOUT_MS)) === "timeout") {
          console.error(`error: closing the store timed out after ${CLOSE_TIMEOUT_MS / 1000} s`);
          code = 1;
        }
      } catch (error) {
        // Opening it failed (nothing to close), or closing it did.
        console.error(`error: ${(error as Error).message}`);
        code = 1;
      }
      if (code !== 1) console.error(`${command} interrupted; the store was closed cleanly`);
      process.exit(code);
    })();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

/**
 * `store` for a CLI command: a transaction (one per ingested document) first lets the event loop
 * turn every 20 ms or so, and none starts once the command is interrupted. PGlite's statements
 * chain through microtasks only, so without the turn a signal would not be handled before the
 * whole ingest ended. The refusal is an administrator shutdown (SQLSTATE 57P01), which the
 * commands treat as the store going away: they stop instead of trying the next document.
 */
function interruptibleStore<S extends Store>(store: S): S {
  let turned = performance.now();
  const db: Db = Object.create(store.db);
  db.transaction = (async (...args: Parameters<Db["transaction"]>) => {
    if (performance.now() - turned > 20) {
      await new Promise((r) => setImmediate(r));
      turned = performance.now();
    }
    if (interrupted) throw Object.assign(new Error(`interrupted by ${interrupted}`), { code: "57P01" });
    return store.db.transaction(...args);
  }) as Db["transaction"];
  return { ...store, db };
}

main(process.argv.slice(2)).then(
  (code) => {
    // After a signal, the handler exits once the store is closed; what the command did meanwhile
    // (finished, or failed on the closing store) does not decide the exit code.
    if (code >= 0 && !interrupted) process.exit(code);
  },
  (error: Error) => {
    if (interrupted) return;
    console.error(`error: ${error.message}`);
    process.exit(1);
  },
);

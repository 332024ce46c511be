/**
 * The store commands (`migrate`, `keys …`, `ingest …`), run the same way by the CLI on a store
 * it opened itself and by a running server for a CLI that forwarded them (admin.ts): output
 * goes through `Io`, so both print exactly the same lines. Bun/Node-only: CLI and server only.
 */
import type { Store } from "../../db/client.ts";
import { migrate } from "../../db/migrate.ts";
import { ingestCommand } from "./ingest.ts";
import type { Io } from "./io.ts";
import { keysCommand } from "./keys.ts";

export const STORE_COMMANDS = ["migrate", "keys", "ingest"] as const;

/**
 * Runs one store command; its exit code. Errors are thrown (the caller prints `error: …`, exit 1).
 * `signal` (Ctrl-C, server shutdown, a forwarding CLI gone) stops an ingest between batches;
 * migrate and keys are single short statements and run to their end.
 */
export async function runStoreCommand(
  store: Store & { describe: string },
  command: string,
  rest: string[],
  io: Io,
  signal?: AbortSignal,
): Promise<number> {
  await migrate(store);
  if (command === "migrate") {
    io.out(`migrations applied (${store.describe})`);
    return 0;
  }
  return command === "keys" ? keysCommand(store, rest, io) : ingestCommand(store, rest, io, signal);
}

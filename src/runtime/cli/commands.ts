/**
 * The store commands (`migrate`, `keys …`, `ingest …`, `sources …`, `export`, `import`), run the same way by the CLI on a store
 * it opened itself and by a running server for a CLI that forwarded them (admin.ts): output
 * goes through `Io`, so both print exactly the same lines. Bun/Node-only: CLI and server only.
 */
import { DEFAULT_OPTIONS } from "../../config/options.ts";
import { exportArchive } from "../../db/archive/index.ts";
import type { Store } from "../../db/client.ts";
import { causes, isUnstorableText, sqlState } from "../../db/errors.ts";
import { migrate } from "../../db/migrate.ts";
import { importCommand, writeArchive } from "./archive.ts";
import { ingestCommand } from "./ingest.ts";
import type { Io } from "./io.ts";
import { keysCommand } from "./keys.ts";
import { type SourcesContext, sourcesCommand } from "./sources.ts";

/** The commands a CLI forwards to the server holding the folder (admin.ts); archives have their own ways. */
export const STORE_COMMANDS = ["migrate", "keys", "ingest", "sources"] as const;

export type { SourcesContext };

/**
 * Runs one store command; its exit code. Errors are thrown (the caller prints `error: …`, exit 1),
 * a failed statement's as `printable` words it.
 * `signal` (Ctrl-C, server shutdown, a forwarding CLI gone) stops an ingest between batches and
 * a `sources … --wait` (and cancels a sync this process runs); migrate and keys are single short
 * statements and run to their end. `context`: what `sources` needs (default: the default options,
 * syncs run in this process).
 */
export async function runStoreCommand(
  store: Store & { describe: string },
  command: string,
  rest: string[],
  io: Io,
  signal?: AbortSignal,
  context: SourcesContext = { sources: DEFAULT_OPTIONS.sources },
): Promise<number> {
  try {
    // An import migrates the store itself: first to the archive's schema, then to this release's.
    if (command === "import") return await importCommand(store, rest, io);
    await migrate(store);
    if (command === "export" || command === "backup") return await writeArchive(exportArchive(store), rest, io);
    if (command === "migrate") {
      io.out(`migrations applied (${store.describe})`);
      return 0;
    }
    if (command === "sources") return await sourcesCommand(store, rest, io, context, signal);
    return await (command === "keys" ? keysCommand(store, rest, io) : ingestCommand(store, rest, io, signal));
  } catch (error) {
    throw printable(error);
  }
}

/**
 * An error as the command prints it. A failed statement's own message (Drizzle's "Failed query:
 * … params: …") quotes the statement and its parameters — a new key's hash, names, document
 * text — so it becomes the database's reason and SQLSTATE alone.
 */
export function printable(error: unknown): Error {
  if (isUnstorableText(error))
    return new Error("the command's input contains a character that cannot be stored: NUL (U+0000)");
  if (!(error instanceof Error) || !/^Failed query:/.test(error.message)) return error as Error;
  const reason = [...causes(error)].slice(1).find((e): e is Error => e instanceof Error)?.message;
  const state = sqlState(error);
  return new Error(
    `a database statement failed${reason ? `: ${reason.split("\n")[0]}` : ""}${state ? ` (SQLSTATE ${state})` : ""}`,
  );
}

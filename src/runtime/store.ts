/**
 * Opens the store the environment names: PostgreSQL when DATABASE_URL is set, else PGlite in
 * DATA_DIR. The PGlite folder is guarded by a kernel lock (lock.ts) so a second process gets a
 * clear error instead of corrupting the store, and kept private to its owner (private-fs.ts).
 * Bun/Node-only (file system, process): CLI and server only.
 */
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Env } from "../config/env.ts";
import { openPostgres, pgliteStore, type Store } from "../db/client.ts";
import { withTimeout } from "../primitives.ts";
import { LockBusy, lockDataDir } from "./lock.ts";
import { pgliteAssets, vectorExtension } from "./pglite-assets.ts";
import { PrivateNodeFS, tightenFolder } from "./private-fs.ts";
import { recoveringPglite } from "./recovering-pglite.ts";

/** How long closing the store may take before a stopping process gives up on it (exit 1). */
export const CLOSE_TIMEOUT_MS = 10_000;

/** A store opened by `openStoreFromEnv`: `close()` may be called more than once (later calls share the first). */
export type OpenedStore = Store & { describe: string };

export interface OpenOptions {
  /** Names this process in another one's "in use" error, e.g. "keys create". */
  command?: string;
  /** Told when an existing data folder had to be made private. */
  warn?: (msg: string) => void;
  /**
   * Called when another process holds the PGlite folder; it resolves to try again, or throws to
   * give up. Without it, the LockBusy error is thrown at once.
   */
  onBusy?: (busy: LockBusy) => Promise<void>;
}

/** The store for this process, and how to let go of it. */
export async function openStoreFromEnv(env: Env, { command, warn, onBusy }: OpenOptions = {}): Promise<OpenedStore> {
  if (env.DATABASE_URL) {
    const store = openPostgres(env.DATABASE_URL, { max: env.DB_POOL_MAX, waitMs: env.DB_WAIT_MS });
    return { ...store, describe: "PostgreSQL (DATABASE_URL)", close: once(store.close) };
  }
  const dir = resolve(env.DATA_DIR);
  // Everything this process creates from here on (the folder, the lock, the admin socket) is
  // its owner's only. PGlite's own files are handled by PrivateNodeFS.
  process.umask(0o077);
  let unlock: () => void;
  for (;;) {
    try {
      unlock = lockDataDir(dir, command);
      break;
    } catch (e) {
      if (!(e instanceof LockBusy) || !onBusy) throw e;
      await onBusy(e);
    }
  }
  try {
    const loosened = tightenFolder(dir);
    if (loosened > 0)
      warn?.(
        `the data folder ${dir} was readable by other users: removed group/other permissions from ${loosened} file(s) and folder(s)`,
      );
    const pg = join(dir, "pg");
    const assets = await pgliteAssets();
    // pgvector is loaded only when hybrid search is on (it costs start-up time).
    const vector = env.EMBEDDINGS_PROVIDER ? await vectorExtension(dir) : undefined;
    // Reopened after a storage fault clears (recovering-pglite.ts).
    const pglite = await recoveringPglite(pg, () =>
      PGlite.create({
        ...assets,
        dataDir: pg,
        fs: new PrivateNodeFS(pg),
        ...(vector ? { extensions: { vector } } : {}),
      }),
    );
    const store = { ...pgliteStore(pglite.client), close: () => pglite.close() };
    return {
      ...store,
      writable: () => pglite.writable(),
      writesRefused: () => pglite.writesRefused(),
      describe: `PGlite in ${dir}`,
      // PGlite's close waits for the running statement (and transaction), then shuts down cleanly.
      close: once(async () => {
        try {
          await store.close();
        } finally {
          unlock();
        }
      }),
    };
  } catch (e) {
    unlock();
    throw e;
  }
}

/** A signal handler and the command it interrupts may both close: the second call waits for the first. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

/** Closes `store` within `ms`: "closed", or "timeout" when it hangs past that. Throws what close throws. */
export async function closeWithin(store: Store, ms = CLOSE_TIMEOUT_MS): Promise<"closed" | "timeout"> {
  return withTimeout(
    store.close().then(() => "closed" as const),
    ms,
    "timeout" as const,
  );
}

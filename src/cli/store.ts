/**
 * Opens the store the environment names: PostgreSQL when DATABASE_URL is set, else PGlite in
 * DATA_DIR. The PGlite folder is guarded by a lock file so a second process gets a clear error
 * instead of corrupting the store. Bun/Node-only (file system, process): CLI and server only.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Env } from "../config/env.ts";
import { openPglite, openPostgres, type Store } from "../db/client.ts";
import { pgliteAssets } from "./pglite-assets.ts";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes DATA_DIR/parley.lock for this process; throws naming the folder when another holds it. */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, "parley.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number(readFileSync(lock, "utf8").trim());
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `The data folder ${dir} is in use by another Parley process (pid ${owner}). ` +
            "PGlite allows one process per folder: stop that process, use another DATA_DIR, or set DATABASE_URL.",
        );
      }
      rmSync(lock, { force: true }); // left by a process that is gone
    }
  }
  throw new Error(`Could not lock the data folder ${dir}.`);
}

/** The store for this process, and how to let go of it. */
export async function openStoreFromEnv(env: Env): Promise<Store & { describe: string }> {
  if (env.DATABASE_URL) {
    const store = openPostgres(env.DATABASE_URL, { max: env.DB_POOL_MAX });
    return { ...store, describe: "PostgreSQL (DATABASE_URL)" };
  }
  const dir = resolve(env.DATA_DIR);
  const unlock = lockDataDir(dir);
  try {
    const store = await openPglite(join(dir, "pg"), await pgliteAssets());
    return {
      ...store,
      describe: `PGlite in ${dir}`,
      close: async () => {
        try {
          await store.close();
        } finally {
          unlock();
        }
      },
    };
  } catch (e) {
    unlock();
    throw e;
  }
}

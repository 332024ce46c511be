/**
 * Opens the store the environment names: PostgreSQL when DATABASE_URL is set, else PGlite in
 * DATA_DIR. The PGlite folder is guarded by a lock file (lock.ts) so a second process gets a
 * clear error instead of corrupting the store. Bun/Node-only (file system, process): CLI and server only.
 */
import { join, resolve } from "node:path";
import type { Env } from "../config/env.ts";
import { openPglite, openPostgres, type Store } from "../db/client.ts";
import { lockDataDir } from "./lock.ts";
import { pgliteAssets } from "./pglite-assets.ts";

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

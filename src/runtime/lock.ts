/**
 * One process per PGlite data folder, guarded by kernel locks (lock-file.ts; flock(2) through
 * Bun's FFI here, flock-bun.ts): a holder stopped for minutes (SIGSTOP, a suspended laptop,
 * `docker pause`) keeps its lock, a dead one loses it at once. Two locks:
 * - `parley.lock`, the store lock: whoever opens PGlite in the folder (server, CLI command, or an
 *   app that embeds the library: db/client.ts takes it through folder-lock.ts);
 * - `parley.server.lock`, the server lock: held by a `serve` for its whole life, so a CLI
 *   command can tell "a server owns the folder" (forward to its admin socket) from "another
 *   command is running", and a second server is refused at once.
 * Each lock file names its holder (pid, host, command) for the error message; the name is
 * informative only, the kernel lock decides. Bun-only (bun:ffi): CLI and server only.
 */
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { flock, lockHeld } from "./flock-bun.ts";
import {
  describeHolder,
  type Holder,
  LockBusy,
  readHolder,
  SERVER_LOCK,
  STORE_LOCK,
  storeBusy,
  takeLock,
} from "./lock-file.ts";
import { assertOwnFolder } from "./private-fs.ts";

export { describeHolder, type Holder, LockBusy, SERVER_LOCK, STORE_LOCK } from "./lock-file.ts";

/** Takes `dir/name` for this process (`command` names it in others' error messages); null when held. */
function tryLock(dir: string, name: string, command: string): (() => void) | null {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  assertOwnFolder(dir); // before anything is written in it
  return takeLock(flock, dir, name, { pid: process.pid, host: hostname(), command } satisfies Holder);
}

/**
 * Takes DATA_DIR/parley.lock for this process (`command` names it in others' error messages).
 * Throws LockBusy naming the folder and the holder when another process holds it.
 */
export function lockDataDir(dir: string, command = "parley"): () => void {
  const release = tryLock(dir, STORE_LOCK, command);
  if (release) return release;
  throw storeBusy(dir, readHolder(join(dir, STORE_LOCK)));
}

/**
 * Takes DATA_DIR/parley.server.lock; throws LockBusy when another server holds the folder.
 * A few short retries: a CLI command's probe (serverHolding) holds it for a moment.
 */
export async function lockServer(dir: string): Promise<() => void> {
  for (let attempt = 0; ; attempt++) {
    const release = tryLock(dir, SERVER_LOCK, "serve");
    if (release) return release;
    if (attempt === 5) break;
    await Bun.sleep(50);
  }
  const holder = readHolder(join(dir, SERVER_LOCK));
  throw new LockBusy(
    dir,
    holder,
    `The data folder ${dir} is in use by another Parley server (${describeHolder(holder)}), which keeps it even while paused. ` +
      "Stop that server, use another DATA_DIR, or set DATABASE_URL to run several servers on one PostgreSQL.",
  );
}

/** Whether a live server holds `dir` now: its holder (as its lock file names it), or null. Writes nothing. */
export function serverHolding(dir: string): Holder | null {
  const path = join(dir, SERVER_LOCK);
  return lockHeld(path) ? readHolder(path) : null;
}

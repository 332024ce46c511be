/**
 * One process per PGlite data folder. The lock file names its holder (host, pid, a random
 * token) and the holder touches it every few seconds. A lock is taken over only when its holder
 * is provably gone (same host, pid dead, not our own pid) or its heartbeat has stopped: in
 * containers every process may be PID 1 and hosts may differ, so a pid alone proves nothing.
 * Bun/Node-only (file system, process): CLI and server only.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/** How often the holder touches the lock, and how old a touch must be before the lock counts as abandoned. */
export const HEARTBEAT_MS = 5_000;
export const STALE_MS = 20_000;

/** What the lock file holds. */
interface Holder {
  pid: number;
  host: string;
  token: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): { holder: Partial<Holder>; ageMs: number } | null {
  try {
    const ageMs = Date.now() - statSync(path).mtimeMs;
    let holder: Partial<Holder> = {};
    try {
      holder = JSON.parse(readFileSync(path, "utf8")) as Partial<Holder>;
    } catch {
      // Half-written or foreign content: only the heartbeat age can tell.
    }
    return { holder, ageMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

function isAbandoned({ holder, ageMs }: { holder: Partial<Holder>; ageMs: number }): boolean {
  if (ageMs > STALE_MS) return true;
  return holder.host === hostname() && typeof holder.pid === "number" && holder.pid !== process.pid && !isAlive(holder.pid);
}

/**
 * Moves an abandoned lock aside. Rename is atomic, so of several processes taking over at once
 * only one moves the file; if what it moved was not the lock it judged (another process took
 * over in between), it puts that lock back.
 */
function evict(lock: string, judged: Partial<Holder>): void {
  const aside = `${lock}.${crypto.randomUUID()}`;
  try {
    renameSync(lock, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  const moved = readHolder(aside);
  if (moved && moved.holder.token !== judged.token) {
    try {
      linkSync(aside, lock); // fails if yet another process holds it now: theirs stands
    } catch {}
  }
  rmSync(aside, { force: true });
}

/** Takes DATA_DIR/parley.lock for this process; throws naming the folder when another holds it. Returns the release. */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, "parley.lock");
  const me: Holder = { pid: process.pid, host: hostname(), token: crypto.randomUUID() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return hold(lock, me);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const current = readHolder(lock);
    if (!current) continue;
    if (!isAbandoned(current)) {
      const { pid, host } = current.holder;
      throw new Error(
        `The data folder ${dir} is in use by another Parley process (pid ${pid ?? "?"} on ${host ?? "?"}). ` +
          "PGlite allows one process per folder: stop that process, use another DATA_DIR, or set DATABASE_URL. " +
          `If that process is gone, the lock is released ${STALE_MS / 1000} s after its last heartbeat.`,
      );
    }
    evict(lock, current.holder);
  }
  throw new Error(`Could not lock the data folder ${dir}.`);
}

/** Keeps the heartbeat going; the release stops it and removes the lock if it is still ours. */
function hold(lock: string, me: Holder): () => void {
  const timer = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(lock, now, now);
    } catch {
      // Gone or unwritable: the next start will judge it by age.
    }
  }, HEARTBEAT_MS);
  (timer as { unref?: () => void }).unref?.();
  return () => {
    clearInterval(timer);
    if (readHolder(lock)?.holder.token === me.token) rmSync(lock, { force: true });
  };
}

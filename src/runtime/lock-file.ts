/**
 * The lock files of a Parley data folder, on whichever runtime takes them. A lock is a kernel
 * lock (flock(2)) on a file in the folder: the kernel releases it when its holder dies, however
 * it dies, and never while it lives, so there is no heartbeat and no staleness to guess. Bun takes
 * it through FFI (flock-bun.ts), Deno through `Deno.FsFile.tryLockSync` (flock-deno.ts), which is
 * flock(2) as well: the same lock, so a server, a CLI command and an app that embeds the library
 * exclude each other whatever runs them. Runtime-neutral (node:fs, which Bun and Deno both have).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** A file whose exclusive lock this process holds. */
export interface LockedFile {
  /** Whether `path` still names the file locked (a holder removes its file on release). */
  stillAt(path: string): boolean;
  /** Replaces the file's content. */
  write(text: string): void;
  /** Unlocks and closes the file. */
  release(): void;
}

/** One runtime's flock(2). */
export interface Flock {
  /** Opens `path` (created 0600 if missing) and locks it without waiting: null when another open file holds it. */
  tryLock(path: string): LockedFile | null;
}

/** Who holds a lock, as its file says. */
export interface Holder {
  pid?: number;
  host?: string;
  command?: string;
  /** Held by an app that embeds the library (openPglite), not by `parley` itself. */
  embedded?: boolean;
}

/** The lock is held by another process (or by another open of it in this one). */
export class LockBusy extends Error {
  override readonly name = "LockBusy";
  constructor(
    readonly dir: string,
    readonly holder: Holder,
    message: string,
  ) {
    super(message);
  }
}

/** The store lock: whoever opens PGlite in the folder (server, CLI command, or an embedding app). */
export const STORE_LOCK = "parley.lock";
/** The server lock: held by a `serve` for its whole life (its admin socket takes commands). */
export const SERVER_LOCK = "parley.server.lock";

export const describeHolder = (h: Holder) =>
  `pid ${h.pid ?? "?"} on ${h.host ?? "?"}${h.command ? `, \`${h.command}\`` : ""}`;

export function readHolder(path: string): Holder {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Holder;
  } catch {
    return {}; // being written, or gone: the kernel lock is what counts
  }
}

/**
 * Takes the lock on `dir/name` without waiting and writes `holder` into it; returns the release,
 * or null when another holds it. The file is removed on release, so after taking the lock we
 * check that the path still names the file we locked (a holder may have removed it in between)
 * and retry if not.
 */
export function takeLock(flock: Flock, dir: string, name: string, holder: Holder): (() => void) | null {
  const path = join(dir, name);
  for (;;) {
    const file = flock.tryLock(path);
    if (!file) return null;
    if (!file.stillAt(path)) {
      file.release(); // removed by the holder we waited for: lock the new file instead
      continue;
    }
    file.write(JSON.stringify(holder));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      rmSync(path, { force: true }); // while still locked: nobody can have locked this file meanwhile
      file.release();
    };
  }
}

/** Why the store lock of `dir` cannot be had: worded for a `parley` command or server. */
export function storeBusy(dir: string, holder: Holder): LockBusy {
  const who = describeHolder(holder);
  return new LockBusy(
    dir,
    holder,
    holder.embedded
      ? `The data folder ${dir} is in use by an app that embeds Parley (${who}). PGlite allows one process per folder: ` +
          "do this through that app (createKey, ingestDocuments, or its admin HTTP routes), stop it, use another DATA_DIR, or set DATABASE_URL for both."
      : `The data folder ${dir} is in use by another Parley process (${who}). ` +
          "PGlite allows one process per folder: wait for that command to end, stop that process, use another DATA_DIR, or set DATABASE_URL.",
  );
}

/**
 * One process per PGlite data folder, guarded by kernel locks (flock(2), through Bun's FFI to
 * libc): the kernel releases a lock when its holder dies, however it dies, and never while it
 * lives — a holder stopped for minutes (SIGSTOP, a suspended laptop, `docker pause`) keeps it.
 * So there is no heartbeat and no staleness to guess. Two locks:
 * - `parley.lock`, the store lock: whoever opens PGlite in the folder (server or CLI command);
 * - `parley.server.lock`, the server lock: held by a `serve` for its whole life, so a CLI
 *   command can tell "a server owns the folder" (forward to its admin socket) from "another
 *   command is running", and a second server is refused at once.
 * Each lock file names its holder (pid, host, command) for the error message; the name is
 * informative only, the kernel lock decides. Bun-only (bun:ffi): CLI and server only.
 */
import { dlopen, FFIType, read } from "bun:ffi";
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { assertOwnFolder } from "./private-fs.ts";

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** EWOULDBLOCK on Linux and on macOS. */
const BUSY = new Set([11, 35]);

type Libc = { flock(fd: number, op: number): number; errno(): number };
let libc: Libc | undefined;

/** libc's flock, loaded once. glibc, musl (Alpine) and macOS name their libc differently. */
function loadLibc(): Libc {
  if (libc) return libc;
  const candidates = [
    "libc.so.6",
    `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`,
    "libc.so",
    "/usr/lib/libSystem.B.dylib",
  ];
  for (const name of candidates) {
    for (const errnoFn of ["__errno_location", "__error"]) {
      try {
        const lib = dlopen(name, {
          flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
          [errnoFn]: { args: [], returns: FFIType.ptr },
        });
        const errno = lib.symbols[errnoFn] as () => number | null;
        libc = { flock: (fd, op) => lib.symbols.flock(fd, op) as number, errno: () => read.i32(errno()! as never, 0) };
        return libc;
      } catch {
        // Not this libc; try the next name.
      }
    }
  }
  throw new Error(
    "Could not load libc's flock(2): the PGlite data folder cannot be locked on this system. Set DATABASE_URL instead.",
  );
}

/** Who holds a lock, as its file says. */
export interface Holder {
  pid?: number;
  host?: string;
  command?: string;
}

/** The lock is held by another process (or by another open of it in this one). */
export class LockBusy extends Error {
  constructor(
    readonly dir: string,
    readonly holder: Holder,
    message: string,
  ) {
    super(message);
  }
}

export const STORE_LOCK = "parley.lock";
export const SERVER_LOCK = "parley.server.lock";

export const describeHolder = (h: Holder) =>
  `pid ${h.pid ?? "?"} on ${h.host ?? "?"}${h.command ? `, \`${h.command}\`` : ""}`;

function readHolder(path: string): Holder {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Holder;
  } catch {
    return {}; // being written, or gone: the kernel lock is what counts
  }
}

/**
 * Takes the flock on `dir/name` without waiting; returns the release, or null when another
 * holds it. The file is removed on release, so after taking the lock we check that the path
 * still names the file we locked (a holder may have removed it in between) and retry if not.
 */
function tryLock(dir: string, name: string, command: string): (() => void) | null {
  const { flock, errno } = loadLibc();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  assertOwnFolder(dir); // before anything is written in it
  const path = join(dir, name);
  for (;;) {
    const fd = openSync(path, "a+", 0o600);
    if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
      const e = errno();
      closeSync(fd);
      if (BUSY.has(e)) return null;
      throw new Error(
        `Could not lock ${path}: flock failed (errno ${e}). Is the data folder on a file system without locks?`,
      );
    }
    let same = false;
    try {
      same = statSync(path).ino === fstatSync(fd).ino;
    } catch {
      // Removed by the holder we waited for: lock the new file instead.
    }
    if (!same) {
      closeSync(fd);
      continue;
    }
    ftruncateSync(fd, 0);
    writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), command } satisfies Holder), 0);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      rmSync(path, { force: true }); // while still locked: nobody can have locked this file meanwhile
      flock(fd, LOCK_UN);
      closeSync(fd);
    };
  }
}

/**
 * Takes DATA_DIR/parley.lock for this process (`command` names it in others' error messages).
 * Throws LockBusy naming the folder and the holder when another process holds it.
 */
export function lockDataDir(dir: string, command = "parley"): () => void {
  const release = tryLock(dir, STORE_LOCK, command);
  if (release) return release;
  const holder = readHolder(join(dir, STORE_LOCK));
  throw new LockBusy(
    dir,
    holder,
    `The data folder ${dir} is in use by another Parley process (${describeHolder(holder)}). ` +
      "PGlite allows one process per folder: wait for that command to end, stop that process, use another DATA_DIR, or set DATABASE_URL.",
  );
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
  const { flock } = loadLibc();
  const path = join(dir, SERVER_LOCK);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null; // no server has run here, or the last one stopped cleanly
  }
  try {
    if (flock(fd, LOCK_EX | LOCK_NB) === 0) {
      flock(fd, LOCK_UN);
      return null;
    }
    return readHolder(path);
  } finally {
    closeSync(fd);
  }
}

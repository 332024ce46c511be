/**
 * flock(2) on Bun, through its FFI to libc (Bun has no file lock of its own); it also works in the
 * compiled binary. Loaded by lock.ts (CLI and server) and by folder-lock.ts on Bun. Bun-only.
 */
import { dlopen, FFIType, read } from "bun:ffi";
import { closeSync, fstatSync, ftruncateSync, openSync, statSync, writeSync } from "node:fs";
import type { Flock, LockedFile } from "./lock-file.ts";

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

export const flock: Flock = {
  tryLock(path: string): LockedFile | null {
    const { flock, errno } = loadLibc();
    const fd = openSync(path, "a+", 0o600);
    if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
      const e = errno();
      closeSync(fd);
      if (BUSY.has(e)) return null;
      throw new Error(
        `Could not lock ${path}: flock failed (errno ${e}). Is the data folder on a file system without locks?`,
      );
    }
    return {
      stillAt(at) {
        try {
          return statSync(at).ino === fstatSync(fd).ino;
        } catch {
          return false;
        }
      },
      write(text) {
        ftruncateSync(fd, 0);
        writeSync(fd, text, 0);
      },
      release() {
        flock(fd, LOCK_UN);
        closeSync(fd);
      },
    };
  },
};

/** Whether some process holds the lock on `path` now (taken and released at once). Writes nothing. */
export function lockHeld(path: string): boolean {
  const { flock } = loadLibc();
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false; // no such file: nobody holds it
  }
  try {
    if (flock(fd, LOCK_EX | LOCK_NB) !== 0) return true;
    flock(fd, LOCK_UN);
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * flock(2) on Deno: `Deno.FsFile.tryLockSync(true)` is flock(LOCK_EX | LOCK_NB) on Unix, so it
 * excludes Bun's (flock-bun.ts) on the same file. Needs only read and write permission (no FFI).
 * Loaded by folder-lock.ts when the library runs on Deno. Deno-only.
 */
import type { Flock, LockedFile } from "./lock-file.ts";

/** The part of Deno's API used here (this repository type-checks against Bun's types). */
interface DenoFile {
  tryLockSync(exclusive?: boolean): boolean;
  unlockSync(): void;
  statSync(): { ino: number | null };
  truncateSync(len?: number): void;
  writeSync(p: Uint8Array): number;
  close(): void;
}
interface DenoApi {
  openSync(path: string, options: { read: boolean; write: boolean; create: boolean; mode: number }): DenoFile;
  statSync(path: string): { ino: number | null };
}

const deno = () => (globalThis as unknown as { Deno: DenoApi }).Deno;

export const flock: Flock = {
  tryLock(path: string): LockedFile | null {
    const file = deno().openSync(path, { read: true, write: true, create: true, mode: 0o600 });
    let locked = false;
    try {
      locked = file.tryLockSync(true); // false: another open file holds it; other failures throw
    } finally {
      if (!locked) file.close();
    }
    if (!locked) return null;
    return {
      stillAt(at) {
        try {
          return deno().statSync(at).ino === file.statSync().ino;
        } catch {
          return false;
        }
      },
      write(text) {
        file.truncateSync(0);
        let bytes = new TextEncoder().encode(text);
        while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
      },
      release() {
        file.unlockSync();
        file.close();
      },
    };
  },
};

/**
 * The lock an app that embeds the library takes on the PGlite folder it opens (`openPglite` in
 * db/client.ts loads this module with `import()` only for a folder on disk, so library code stays
 * Web-standard). It is the server's and the CLI's store lock (lock-file.ts): the same file and the
 * same kernel lock, so an app, `parley serve`, a `parley keys …` command and another app never
 * write one folder at once, whichever runtime each runs on. The flock comes from the runtime
 * running now: Bun's FFI (flock-bun.ts) or Deno's `FsFile.tryLockSync` (flock-deno.ts).
 *
 * Where the lock lives: a folder named `pg` is the layout of `parley serve` (DATA_DIR/pg, with
 * the locks in DATA_DIR), so its lock is its parent's `parley.lock`, the one a `parley` command
 * run with DATA_DIR set to that parent takes. Any other folder holds its own `parley.lock`.
 */
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, resolve } from "node:path";
import process from "node:process";
import { describeHolder, type Flock, LockBusy, readHolder, STORE_LOCK, takeLock } from "./lock-file.ts";

/** The folder whose `parley.lock` guards the PGlite folder `pgDir`. */
export function lockFolderOf(pgDir: string): string {
  const dir = resolve(pgDir);
  return basename(dir) === "pg" ? dirname(dir) : dir;
}

async function runtimeFlock(): Promise<Flock> {
  if ("Deno" in globalThis) return (await import("./flock-deno.ts")).flock;
  if ("Bun" in globalThis) return (await import("./flock-bun.ts")).flock;
  throw new Error(
    "Parley locks a PGlite folder with flock(2) on Bun and Deno only; on this runtime use PostgreSQL (openPostgres), or PGlite in memory.",
  );
}

/**
 * Takes the store lock of the PGlite folder `pgDir` for this process, or throws LockBusy naming
 * the holder (pid, host, command). Returns the release.
 */
export async function lockPgliteFolder(pgDir: string): Promise<() => void> {
  const dir = lockFolderOf(pgDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const command = `app ${process.argv[1] ?? "?"}`;
  const release = takeLock(await runtimeFlock(), dir, STORE_LOCK, {
    pid: process.pid,
    host: hostname(),
    command,
    embedded: true,
  });
  if (release) return release;
  const holder = readHolder(resolve(dir, STORE_LOCK));
  throw new LockBusy(
    dir,
    holder,
    `The PGlite folder ${resolve(pgDir)} is in use by another process (${describeHolder(holder)}): PGlite allows one process per folder, ` +
      "and two writers would lose data. Stop that process (or do this through it), open another folder, or share a PostgreSQL store (openPostgres).",
  );
}

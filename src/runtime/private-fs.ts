/**
 * The PGlite data folder, private to its owner (as PostgreSQL itself insists): folders 0700,
 * files 0600. Two parts:
 * - `PrivateNodeFS`: PGlite's NodeFS, except that the modes Postgres asks for are masked with
 *   077. PGlite's file system (Emscripten's NODEFS) chmods every file it creates to the mode
 *   Postgres passed (0666), which the process umask cannot stop; Emscripten keeps its own view
 *   of the mode, so Postgres sees no difference.
 * - `tightenFolder`: at start, an existing folder with group/other bits (created by an earlier
 *   version, or copied in) is tightened, and the caller is told so it can warn.
 * Bun/Node-only (file system): CLI and server only.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { NodeFS } from "@electric-sql/pglite/nodefs";

const PRIVATE = 0o077;

type SetAttr = (
  arg: unknown,
  node: unknown,
  attr: unknown,
  chmod: (arg: unknown, mode: number) => void,
  ...rest: unknown[]
) => void;

export class PrivateNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS["init"]>) {
    const result = await super.init(...args);
    const preRun = result.emscriptenOpts.preRun ?? [];
    result.emscriptenOpts.preRun = [
      ...preRun,
      (mod: { NODEFS: { doSetAttr?: SetAttr } }) => {
        const nodefs = mod.NODEFS;
        const doSetAttr = nodefs.doSetAttr;
        // If a PGlite upgrade renames this, files stay as PGlite makes them; tightenFolder at the
        // next start and the permission test catch it.
        if (typeof doSetAttr !== "function") return;
        nodefs.doSetAttr = (arg, node, attr, chmod, ...rest) =>
          doSetAttr(arg, node, attr, (a, mode) => chmod(a, mode & ~PRIVATE), ...rest);
      },
    ] as typeof preRun;
    return result;
  }
}

/**
 * Creates `dir` 0700 if missing; otherwise removes group/other permissions from it and from
 * everything below it (symlinks are left alone). Returns how many entries it changed.
 */
export function tightenFolder(dir: string): number {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let changed = 0;
  const walk = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (st.mode & PRIVATE) {
      chmodSync(path, st.mode & 0o700);
      changed++;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return changed;
}

/**
 * Refuses a data folder (or its `pg` folder) owned by another user, as PostgreSQL does: its owner
 * could later reopen the store behind the server's back or swap the admin socket. Root is no
 * exception. Where the platform has no user ids (Windows), there is nothing to compare.
 */
export function assertOwnFolder(dir: string): void {
  const me = process.getuid?.();
  if (me === undefined) return;
  for (const path of [dir, join(dir, "pg")]) {
    if (!existsSync(path)) continue;
    const { uid } = lstatSync(path);
    if (uid !== me)
      throw new Error(
        `The data folder ${path} is owned by another user (uid ${uid}); this server runs as uid ${me}. ` +
          "Run Parley as the folder's owner, or give the folder to this user (chown -R), or use another DATA_DIR.",
      );
  }
}

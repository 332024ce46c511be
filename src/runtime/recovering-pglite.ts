/**
 * PGlite on a data folder that heals after a storage fault. When the folder's permissions change
 * under the server, or the disk fills, Postgres inside PGlite fails the statements that touch an
 * affected file (42501 "could not open file", 58P02, 53100) — and keeps failing them after the
 * fault clears, until the instance is reopened. When it cannot create its next WAL segment it
 * PANICs, and the instance never answers again (panic-fence.ts). So:
 * - the client handed to Drizzle is a stand-in that forwards to the current PGlite instance and
 *   notices storage faults in what it forwards;
 * - it refuses writes while the disk is nearly full (disk-room.ts), so a PANIC is not reached;
 * - every instance is fenced: after a PANIC nothing enters it again (panic-fence.ts);
 * - `writable()` is the readiness probe: a small file written, synced and removed in the folder,
 *   write access to every file and folder below it, room on the disk, then `select 1` — at most
 *   once a second, concurrent callers share one probe;
 * - after a fault (seen in a statement, a PANIC or by the probe), a timer tries every second:
 *   once the folder is writable again and a WAL segment fits, the instance is closed (a PANICked
 *   one is dropped: closing it would enter it) and a new one opened on the same folder
 *   (Postgres' crash recovery replays its WAL). Statements issued meanwhile wait for it.
 * The folder lock (lock.ts) stays held throughout: no other process can open it in between.
 * Bun/Node-only (file system): server and CLI only.
 */
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { isStorageFault } from "../db/errors.ts";
import { withTimeout } from "../primitives.ts";
import { type DiskRoom, diskRoom, freeBytes, type RoomLimits, roomLimits } from "./disk-room.ts";
import { fence } from "./panic-fence.ts";

/** How often a faulted store checks whether it can reopen, and how long a probe's answer is reused. */
const RETRY_MS = 1_000;
const PROBE_EVERY_MS = 1_000;
/** A close of a faulted instance may hang on its last checkpoint: not longer than this. */
const CLOSE_FAULTED_MS = 2_000;

export interface RecoveringPglite {
  /** What Drizzle is given: forwards to the current instance. */
  readonly client: PGlite;
  /** Whether the folder and the instance can write now (rate-limited; see above). */
  writable(): Promise<boolean>;
  /** Why requests that change data are refused now (the disk is nearly full), or undefined. */
  writesRefused(): string | undefined;
  /** Whether a fault is waiting to be recovered from. */
  readonly faulted: boolean;
  close(): Promise<void>;
}

export interface RecoveringOptions {
  /** The free-space limits for a WAL segment size in bytes (default: disk-room.ts). */
  limits?: (segment: number) => RoomLimits;
  /** Free bytes on the folder's disk (default: statfs). */
  free?: () => number;
}

/** `open` opens a PGlite instance on `dir` (the folder PGlite's files are in). */
export async function recoveringPglite(
  dir: string,
  open: () => Promise<PGlite>,
  { limits = roomLimits, free = () => freeBytes(dir) }: RecoveringOptions = {},
): Promise<RecoveringPglite> {
  /** Instances that PANICked: never entered again, not even to close them. */
  const panicked = new WeakSet<PGlite>();
  const openFenced = async () => {
    const db = await open();
    fence(db, () => {
      panicked.add(db);
      fault();
    });
    return db;
  };
  let current = await openFenced();
  const room: DiskRoom = diskRoom(dir, limits(await walSegmentBytes(current)), free);
  let opening: Promise<PGlite> | undefined; // set while reopening: statements wait for it
  let faulted = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let probe: { at: number; result: Promise<boolean> } | undefined;

  const instance = () => opening ?? Promise.resolve(current);
  const fault = () => {
    if (closed) return;
    faulted = true;
    timer ??= setTimeout(recover, RETRY_MS);
  };
  const recover = async () => {
    timer = undefined;
    if (closed) return;
    // Reopening replays the WAL and writes a checkpoint: it may need a new segment too.
    if (folderProblem(dir) || !room.roomToOpen()) {
      timer = setTimeout(recover, RETRY_MS);
      return;
    }
    const old = current;
    opening = (async () => {
      if (!panicked.has(old))
        await withTimeout(
          old.close().catch(() => {}),
          CLOSE_FAULTED_MS,
          undefined,
        );
      return openFenced();
    })();
    try {
      current = await opening;
      await current.query("select 1");
      faulted = false;
      probe = undefined;
    } catch {
      timer = setTimeout(recover, RETRY_MS);
    } finally {
      opening = undefined;
    }
  };
  /** Forwards a call unless the disk is too full for it, noticing a storage fault in its failure. */
  const forward =
    (name: "query" | "exec" | "transaction") =>
    async (...args: unknown[]) => {
      const refused = room.refusal(name === "transaction" ? undefined : String(args[0]));
      if (refused) throw refused;
      // A reopening that failed leaves the old instance: closed or fenced, it fails with a 503.
      const db = await instance().catch(() => current);
      try {
        return await (db[name] as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        if (isStorageFault(error)) fault();
        throw error;
      }
    };
  const wrapped: Record<string, unknown> = {
    query: forward("query"),
    exec: forward("exec"),
    transaction: forward("transaction"),
  };
  const client = new Proxy({} as PGlite, {
    get(_target, prop) {
      if (typeof prop === "string" && prop in wrapped) return wrapped[prop];
      const value = (current as unknown as Record<PropertyKey, unknown>)[prop];
      return typeof value === "function" ? value.bind(current) : value;
    },
  });

  const check = async (): Promise<boolean> => {
    if (folderProblem(dir)) {
      fault();
      return false;
    }
    if (faulted || room.writesRefused()) return false;
    try {
      await (await instance()).query("select 1");
      return true;
    } catch {
      return false;
    }
  };

  return {
    client,
    get faulted() {
      return faulted;
    },
    writable() {
      if (!probe || Date.now() - probe.at >= PROBE_EVERY_MS) probe = { at: Date.now(), result: check() };
      return probe.result;
    },
    writesRefused: () => room.writesRefused(),
    async close() {
      closed = true;
      clearTimeout(timer);
      const db = await instance();
      if (!panicked.has(db)) await db.close();
    },
  };
}

/** The instance's WAL segment size in bytes (16 MiB unless PGlite was built otherwise). */
async function walSegmentBytes(db: PGlite): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>(
    "select pg_size_bytes(current_setting('wal_segment_size'))::text as bytes",
  );
  return Number(rows[0]!.bytes);
}

/** Why Postgres could not write in `dir` now (a message), or undefined when it can. */
export function folderProblem(dir: string): string | undefined {
  // A real write, synced: a read-only folder or file system, or a full disk, fails here.
  const probe = join(dir, ".parley-write-probe");
  try {
    const fd = openSync(probe, "w", 0o600);
    try {
      writeSync(fd, new Uint8Array(8192));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      rmSync(probe, { force: true });
    }
  } catch (error) {
    return `cannot write in ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  // Files and folders made read-only one by one (about a thousand entries: a few milliseconds).
  let bad: string | undefined;
  const walk = (path: string) => {
    if (bad) return;
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch {
      bad = path;
      return;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  try {
    walk(dir);
  } catch (error) {
    return `cannot read ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  return bad ? `no write access to ${bad}` : undefined;
}

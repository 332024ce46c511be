/**
 * The free space left on the disk that holds a PGlite folder, and what the store refuses as it
 * runs out. Why: Postgres writes a whole new WAL segment (`wal_segment_size`, 16 MiB) before it
 * uses it, and when that write fails it PANICs; a PGlite instance that PANICked never answers
 * again (panic-fence.ts). So writes stop while a segment still fits, at two levels:
 * - below two segments free (`requestsBelow`), requests that change data are refused (503, the
 *   API's admission asks `writesRefused()`) and /readyz says not ready; reads go on;
 * - below one segment and 4 MiB (`statementsBelow`), the store refuses every statement that may
 *   write (anything but a plain SELECT or SHOW), whoever runs it: a reply's flush, the sweeper, a
 *   CLI command on the admin socket, the API's own bookkeeping (a key's request count).
 * The space is read with statfs (a few microseconds), at most every CHECK_EVERY_MS.
 * Bun/Node-only (file system): server and CLI only.
 */
import { statfsSync } from "node:fs";

/** How long a free-space reading is reused. */
const CHECK_EVERY_MS = 100;
const MiB = 1024 * 1024;

/** Free-space limits in bytes; `segment` is the store's WAL segment size. */
export interface RoomLimits {
  requestsBelow: number;
  statementsBelow: number;
}

export const roomLimits = (segment: number): RoomLimits => ({
  requestsBelow: 2 * segment,
  statementsBelow: segment + 4 * MiB,
});

/** A statement refused for want of space: SQLSTATE 53100 (disk_full), a storage fault (503). */
export class DiskFull extends Error {
  readonly code = "53100";
  override readonly name = "DiskFull";
}

export interface DiskRoom {
  /** Why requests that change data are refused now (free space below `requestsBelow`), or undefined. */
  writesRefused(): string | undefined;
  /** The error to fail `sql` with now (free space below `statementsBelow` and `sql` may write), or undefined. */
  refusal(sql: string | undefined): DiskFull | undefined;
  /** Whether a store may be (re)opened: free space at or above `statementsBelow`. */
  roomToOpen(): boolean;
}

/** The room on the disk of `dir`, measured by `free` (bytes; statfs by default). */
export function diskRoom(dir: string, limits: RoomLimits, free: () => number = () => freeBytes(dir)): DiskRoom {
  let reading: { at: number; bytes: number } | undefined;
  const bytes = () => {
    const now = Date.now();
    if (!reading || now - reading.at >= CHECK_EVERY_MS) reading = { at: now, bytes: free() };
    return reading.bytes;
  };
  const describe = (below: number) =>
    `the disk holding ${dir} has ${mib(bytes())} MiB free, below the ${mib(below)} MiB Parley keeps for the database's write-ahead log`;
  return {
    writesRefused: () => (bytes() < limits.requestsBelow ? describe(limits.requestsBelow) : undefined),
    refusal(sql) {
      if (bytes() >= limits.statementsBelow || (sql !== undefined && isPlainRead(sql))) return undefined;
      return new DiskFull(`${describe(limits.statementsBelow)}: statements that write are refused`);
    },
    roomToOpen: () => bytes() >= limits.statementsBelow,
  };
}

/** Bytes an unprivileged process may still write on the file system of `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * One SELECT or SHOW that takes no row locks: it writes no data. (Postgres may still prune a page
 * it reads, a few WAL bytes; that is what the margin above one segment is for.) A second
 * statement after a semicolon makes it a write, whatever it is.
 */
export function isPlainRead(sql: string): boolean {
  return (
    /^[\s(]*(select|show)\b/i.test(sql) &&
    !/\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/i.test(sql) &&
    !/;\s*\S/.test(sql)
  );
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);

/**
 * A Parley archive: one gzip-compressed stream of JSON lines, written and read a line at a time
 * (memory never grows with the store). The lines, in order:
 * - the header (`ArchiveHeader`): what wrote it and at which schema;
 * - for each table, a marker `{"parley_table": name, "columns": […]}`, then one line per row: the
 *   row as PostgreSQL's `to_jsonb` prints it (every type round-trips through its text form, and
 *   numbers are never re-read as JavaScript numbers on the way), in primary-key order (text keys
 *   byte by byte), timestamps in UTC;
 * - the trailer (`ArchiveTrailer`): rows per table, the SHA-256 of every line before it, and the
 *   SHA-256 of the tables' lines alone (`rows_sha256`: equal for two stores holding the same rows).
 * Tables kept by triggers from others (the search statistics, rebuilt as passages are loaded)
 * are not in it.
 */

export const ARCHIVE_FORMAT = 1;

/**
 * Held while an archive is written or loaded: on PostgreSQL `withLock` runs it on a connection of
 * its own, outside the pool's per-statement bound (an archive takes longer than any request may),
 * and two imports into one database run one after the other (the second finds it full).
 */
export const ARCHIVE_LOCK = 0x50415243; // "PARC"

export interface ArchiveHeader {
  parley_archive: typeof ARCHIVE_FORMAT;
  parley_version: string;
  /** The store's schema: how many migrations, the last one's tag and hash. */
  schema: { migrations: number; last: string; hash: string };
  store: "pglite" | "postgres";
  created_at: string;
  /** The passage vectors' model and length, when the store holds any (hybrid search). */
  embeddings: { model: string; dimensions: number } | null;
  /** The tables, in the order they are written and loaded (every referenced table first). */
  tables: string[];
}

export interface TableMarker {
  parley_table: string;
  columns: string[];
}

export interface ArchiveTrailer {
  parley_archive_end: true;
  counts: Record<string, number>;
  sha256: string;
  rows_sha256: string;
}

/** An archive that cannot be read or loaded: the CLI prints its message, the route answers 400. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

/** A marker line starts so; a row never does (no Parley column is named `parley_table`). */
export const MARKER_PREFIX = '{"parley_table":';
export const TRAILER_PREFIX = '{"parley_archive_end":';

/** Names the archive may carry: plain lower-case SQL identifiers, quoted as they are. */
export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

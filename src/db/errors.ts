/** Classifying database driver errors (postgres.js, PGlite, sockets): no HTTP here. */

/**
 * postgres.js / PGlite / socket failures that mean "no connection to the database right now":
 * any failure to obtain or keep a connection is a 503, never a 500.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (isTooManyParameters(error)) return false;
  for (const e of causes(error)) if (unavailable(e)) return true;
  return false;
}

/**
 * A statement with more bind parameters than the wire protocol carries (65,535): the request's
 * size, not an outage. postgres.js refuses it before sending; PGlite sends it and answers
 * 08P01, a connection-exception class that must not read as "the store is away" (a 503 with
 * Retry-After would have the client send the same request for ever).
 */
export function isTooManyParameters(error: unknown): boolean {
  for (const e of causes(error)) {
    const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
    if (code === "MAX_PARAMETERS_EXCEEDED") return true;
    if (code === "08P01" && /bind message has \d+ parameter formats but \d+ parameters/.test(String(message)))
      return true;
  }
  return false;
}

function unavailable(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = String(e.code ?? e.errno ?? "");
  const message = String(e.message ?? "");
  if (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|CONNECT_TIMEOUT|CONNECTION_\w+|DB_WAIT_TIMEOUT)$/.test(
      code,
    )
  )
    return true;
  // 57P01..05: admin/crash shutdown, cannot connect now, idle-session timeout; 08xxx: connection
  // exceptions; 53300: too many connections; 3D000: no such database; 28xxx: login refused.
  if (/^(57P0[1-5]|08\w{3}|53300|3D000|28\w{3})$/.test(code)) return true;
  // 55000 is a broad class ("object not in prerequisite state"); only its connection case counts:
  // ALTER DATABASE … ALLOW_CONNECTIONS false.
  if (code === "55000" && /not currently accepting connections/i.test(message)) return true;
  return /PGlite is closed|connection (?:terminated|ended|closed)|write CONNECTION_CLOSED|timeout exceeded when trying to connect/i.test(
    message,
  );
}

/**
 * A fault of the store's own storage rather than of the query: the data files cannot be read or
 * written (permissions changed under the server, read-only or full disk, I/O error). Transient
 * from the client's side (503, retry later), and the store may need reopening once it clears
 * (runtime/recovering-pglite.ts). 42501 counts only in its file form: a privilege refused on a
 * table is a configuration error, not a storage fault.
 */
export function isStorageFault(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown } | null, depth = 0;
    e && typeof e === "object" && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    const code = String(e.code ?? e.errno ?? "");
    const message = String(e.message ?? "");
    // 53100 disk_full; 58xxx system errors (58030 io_error, 58P01 undefined_file, 58P02 duplicate_file).
    if (/^(53100|58\w{3})$/.test(code)) return true;
    if (code === "42501" && /could not [a-z ]+ (file|directory)/i.test(message)) return true;
    if (/^(EACCES|EPERM|EROFS|ENOSPC|EDQUOT|EIO)$/.test(code)) return true;
  }
  return false;
}

/** A storage fault that is a full disk (53100 disk_full, ENOSPC, EDQUOT): writes wait for space to be freed. */
export function isDiskFull(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = e && typeof e === "object" ? String((e as { code?: unknown }).code ?? "") : "";
    if (/^(53100|ENOSPC|EDQUOT)$/.test(code)) return true;
  }
  return false;
}

/** The SQLSTATEs Parley acts on, by name. */
export const SQLSTATE = {
  /** A referenced row is gone: e.g. the conversation was deleted while a message was being added. */
  foreignKeyViolation: "23503",
  uniqueViolation: "23505",
  deadlockDetected: "40P01",
  serializationFailure: "40001",
  /** Text PostgreSQL cannot hold: a NUL (U+0000) in a text value … */
  characterNotInRepertoire: "22021",
  /** … or in a JSON value stored as jsonb (`\\u0000`). */
  untranslatableCharacter: "22P05",
} as const;

/** A deadlock or serialisation failure: the transaction lost a race and may simply run again. */
export function isTransientConflict(error: unknown): boolean {
  const state = sqlState(error);
  return state === SQLSTATE.deadlockDetected || state === SQLSTATE.serializationFailure;
}

/**
 * Whether the statement failed on text the client sent that PostgreSQL cannot store (a NUL
 * character anywhere in a name, id, URL or JSON value): the request's fault, answered 400.
 */
export function isUnstorableText(error: unknown): boolean {
  const state = sqlState(error);
  return state === SQLSTATE.characterNotInRepertoire || state === SQLSTATE.untranslatableCharacter;
}

/** The errors a driver error is wrapped in, outermost first (Drizzle wraps the driver's in `cause`). */
export function* causes(error: unknown): Generator<unknown> {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

/** The SQLSTATE of a database error, looking through its causes. */
export function sqlState(error: unknown): string | undefined {
  for (const e of causes(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

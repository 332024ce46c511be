/**
 * The structured logger: one line per event, JSON (`format: "json"`) or readable text.
 *
 * Calls take `(fields, msg)`, the order of pino and bunyan, so a host app can pass its own pino
 * instance as `logger`. The default is this small writer rather than pino itself because the
 * library uses Web-standard APIs only (pino writes through Node streams) and must run unchanged
 * on Deno and in the compiled binary; it writes with `console`, which both have.
 *
 * Callers never pass request headers, so neither keys nor Authorization values can reach the
 * log; errors are reduced by `describeError`, which never keeps query text or parameters.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFormat = "json" | "text";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

type Fields = Record<string, unknown>;

/** What the library logs through, `(fields, msg)`; pass your own (a pino instance fits) to route it elsewhere. */
export interface Logger {
  debug(fields: Fields, msg: string): void;
  info(fields: Fields, msg: string): void;
  warn(fields: Fields, msg: string): void;
  error(fields: Fields, msg: string): void;
}

/** A level's method on our own logger: `(fields, msg)`, and the older `(msg, fields?)` order too. */
export interface LogFn {
  (fields: Fields, msg: string): void;
  /** @deprecated pass `(fields, msg)`; kept so older call sites keep working. */
  (msg: string, fields?: Fields): void;
}

/** The logger `createLogger` makes: a `Logger` that also takes the older argument order. */
export interface CompatLogger extends Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** A driver message is kept, cut to this length (enough for any PostgreSQL error text). */
const MAX_MESSAGE = 300;

/**
 * A query wrapper's error (Drizzle's DrizzleQueryError: message "Failed query: … params: …",
 * own `query` and `params`). Drizzle 0.45 leaves `name` as "Error", so recognise it by shape —
 * but not by `query` alone: postgres.js puts `query` and `parameters` on its own connection
 * errors too (CONNECTION_CLOSED, ECONNRESET), whose message and code are the cause to keep.
 */
function isQueryWrapper(e: Error): boolean {
  const o = e as unknown as { params?: unknown };
  return e.constructor?.name === "DrizzleQueryError" || Array.isArray(o.params) || /^Failed query:/.test(e.message);
}

/** A driver error from the database (postgres.js PostgresError, PGlite's DatabaseError): it carries a SQLSTATE. */
function isDatabaseError(e: Error): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && ("severity" in e || "routine" in e || "file" in e);
}

/**
 * What of an error reaches the log. For database errors: the SQLSTATE, the driver's message
 * (e.g. `database "x" is not currently accepting connections`), severity and the constraint or
 * table it names — never the query, its parameters (key hashes, message text) nor `detail`
 * (which quotes row values). Anything else keeps its stack: that is what a bug report needs.
 */
export function describeError(e: unknown, depth = 0): unknown {
  if (!(e instanceof Error))
    return typeof e === "object" && e !== null ? { value: String(e).slice(0, MAX_MESSAGE) } : e;
  const o = e as unknown as Record<string, unknown>;
  const code = typeof o.code === "string" ? o.code : typeof o.errno === "string" ? o.errno : undefined;
  // First: PGlite's own error also carries `query` and `params` (kept out, like the wrapper's).
  if (isDatabaseError(e)) {
    // `class`: the SQLSTATE's class (08 connection exception, 57 operator intervention, 53 resources…).
    const out: Fields = { name: e.name, code, class: code?.slice(0, 2), message: e.message.slice(0, MAX_MESSAGE) };
    for (const k of ["severity", "constraint_name", "table_name", "routine"])
      if (typeof o[k] === "string") out[k] = o[k];
    return out;
  }
  if (isQueryWrapper(e)) {
    const cause = e.cause !== undefined && depth < 4 ? describeError(e.cause, depth + 1) : undefined;
    return { name: "DrizzleQueryError", message: "database query failed", ...(cause ? { cause } : {}) };
  }
  const out: Fields = { name: e.name, message: e.message.slice(0, 2000) };
  if (code) out.code = code;
  if (e.stack) out.stack = e.stack;
  if (e.cause !== undefined && depth < 4) out.cause = describeError(e.cause, depth + 1);
  return out;
}

const replacer = (_k: string, v: unknown) =>
  v instanceof Error ? describeError(v) : typeof v === "bigint" ? String(v) : v;

function textLine(time: string, level: string, msg: string, fields: Fields): string {
  const parts = [time, level.toUpperCase().padEnd(5), msg];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const s = typeof v === "string" ? v : JSON.stringify(v, replacer);
    parts.push(`${k}=${/^[^\s"=]+$/.test(s) ? s : JSON.stringify(s)}`);
  }
  return parts.join(" ");
}

/** Where lines go: by default warn and error to stderr, the rest to stdout. */
export type LogSink = (line: string, level: Exclude<LogLevel, "silent">) => void;
const consoleSink: LogSink = (line, l) => (l === "error" || l === "warn" ? console.error : console.log)(line);

export function createLogger(
  level: LogLevel = "info",
  format: LogFormat = "json",
  write: LogSink = consoleSink,
): CompatLogger {
  const at = (l: Exclude<LogLevel, "silent">): LogFn =>
    ((a: Fields | string, b?: Fields | string) => {
      if (ORDER[l] < ORDER[level]) return;
      const [fields, msg] = typeof a === "string" ? [(b as Fields | undefined) ?? {}, a] : [a ?? {}, String(b ?? "")];
      const time = new Date().toISOString();
      const line =
        format === "json"
          ? JSON.stringify({ time, level: l, msg, ...fields }, replacer)
          : textLine(time, l, msg, fields);
      write(line, l);
    }) as LogFn;
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

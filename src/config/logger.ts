/**
 * A minimal structured logger (one JSON object per line). Callers never pass request headers,
 * so neither keys nor Authorization values can reach the log.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** What the library logs through; pass your own to route it elsewhere. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * What of an error reaches the log. Drizzle's query errors carry the bound parameters (key
 * hashes, message text) in their message and stack, so for those only the driver's cause is kept.
 */
function errorFields(e: Error): Record<string, unknown> {
  if (e.name === "DrizzleQueryError" && e.cause instanceof Error) return { name: e.name, cause: errorFields(e.cause) };
  const code = (e as { code?: unknown }).code;
  return { name: e.name, message: e.message, ...(typeof code === "string" ? { code } : {}), stack: e.stack };
}

export function createLogger(level: LogLevel = "info"): Logger {
  const at = (l: Exclude<LogLevel, "silent">) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[l] < ORDER[level]) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }, (_k, v) =>
      v instanceof Error ? errorFields(v) : v,
    );
    (l === "error" || l === "warn" ? console.error : console.log)(line);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

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

export function createLogger(level: LogLevel = "info"): Logger {
  const at = (l: Exclude<LogLevel, "silent">) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[l] < ORDER[level]) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }, (_k, v) =>
      v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v,
    );
    (l === "error" || l === "warn" ? console.error : console.log)(line);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

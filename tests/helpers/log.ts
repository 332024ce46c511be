/** A logger that keeps its lines (JSON, every level) for assertions, and waits for a line. */
import { createLogger, type Logger } from "../../src/config/logger.ts";

export interface CapturedLog {
  logger: Logger;
  lines: string[];
  /** The lines parsed, in order. */
  entries(): Array<Record<string, any>>;
  text(): string;
  /** Resolves once `count` lines match (at once if they already do); rejects after `ms`. */
  waitFor(match: (entry: Record<string, any>) => boolean, count?: number, ms?: number): Promise<void>;
}

/** Lines as a sink writes them, with a wait for the ones a test expects (an access line is written after the response). */
export function lineSink() {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const entries = () => lines.map((l) => JSON.parse(l) as Record<string, any>);
  return {
    lines,
    entries,
    write(line: string) {
      lines.push(line);
      for (const w of waiters) w();
    },
    async waitFor(match: (entry: Record<string, any>) => boolean, count = 1, ms = 10_000): Promise<void> {
      const until = Date.now() + ms;
      while (entries().filter(match).length < count) {
        if (Date.now() > until) throw new Error(`no such log line in ${ms} ms:\n${lines.join("\n")}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(wake, until - Date.now());
          function wake() {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          }
          waiters.add(wake);
        });
      }
    },
  };
}

export function captureLog(): CapturedLog {
  const sink = lineSink();
  const logger = createLogger("debug", "json", (line) => sink.write(line));
  return {
    logger,
    lines: sink.lines,
    entries: sink.entries,
    text: () => sink.lines.join("\n"),
    waitFor: sink.waitFor,
  };
}

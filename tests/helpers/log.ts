/** A logger that keeps its lines (JSON, every level) for assertions. */
import { createLogger, type Logger } from "../../src/config/logger.ts";

export interface CapturedLog {
  logger: Logger;
  lines: string[];
  /** The lines parsed, in order. */
  entries(): Array<Record<string, any>>;
  text(): string;
}

export function captureLog(): CapturedLog {
  const lines: string[] = [];
  const logger = createLogger("debug", "json", (line) => void lines.push(line));
  return { logger, lines, entries: () => lines.map((l) => JSON.parse(l)), text: () => lines.join("\n") };
}

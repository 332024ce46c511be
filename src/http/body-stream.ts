/**
 * Reading a request body that may take long (document uploads), chunk by chunk. Bun's server
 * cuts a request its `idleTimeout` after the request began however steadily the body arrives
 * (measured on Bun 1.4: a body still arriving at 6 MB/s was cut at twice the timeout), so an
 * upload lifts that cut-off for itself (`holdOpen`) and keeps its own: at most `idleMs` between
 * two chunks. A body that breaks off (the client closed the connection) or stalls ends the
 * upload with a 400 of its own kind, so the route can tell it from a fault of the server.
 */

import { withTimeout } from "../timeout.ts";
import { ApiError } from "./errors.ts";

/** The body ended before its end: the client closed the connection, or the network failed. */
export class BodyBrokeOff extends ApiError {
  constructor(cause: unknown) {
    super("invalid_request", "The request body broke off before its end (the connection was closed).", { cause });
  }
}

/** No byte of the body arrived for `idleMs`: reading stopped. */
export class BodyStalled extends ApiError {
  constructor(idleMs: number) {
    super("invalid_request", `The request body sent nothing for ${idleMs} ms: reading it stopped.`);
  }
}

/** Work to do while a read waits: due in `dueIn()` ms (Infinity: none), done by `run()`. */
export interface WhileWaiting {
  dueIn(): number;
  run(): Promise<void>;
}

/** A body read chunk by chunk (see `readChunks`). */
export interface ChunkReader {
  /** The next chunk, `null` at the body's end. */
  next(): Promise<Uint8Array | null>;
  /** Stops reading: the rest of the body is not read. */
  cancel(): Promise<void>;
}

const TIMEOUT = Symbol("timeout");

/** `promise`, or TIMEOUT once `ms` have passed first (no timer for Infinity). */
const within = <T>(promise: Promise<T>, ms: number) => withTimeout(promise, ms, TIMEOUT);

/**
 * The chunks of `body`: each read waits at most `idleMs` for bytes (then the body is cancelled
 * and BodyStalled thrown); a read that fails throws BodyBrokeOff. While a read waits, `waiting`
 * runs whenever it is due (a bulk upload stores what it holds while the client is slow).
 */
export function readChunks(body: ReadableStream<Uint8Array>, idleMs: number, waiting?: WhileWaiting): ChunkReader {
  const reader = body.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  const next = async () => {
    const started = Date.now();
    const read = reader.read().catch((error: unknown) => {
      throw new BodyBrokeOff(error);
    });
    for (;;) {
      const left = idleMs - (Date.now() - started);
      if (left <= 0) {
        read.catch(() => {});
        await cancel();
        throw new BodyStalled(idleMs);
      }
      const result = await within(read, Math.min(left, waiting?.dueIn() ?? Infinity));
      if (result !== TIMEOUT) return result.done ? null : result.value;
      if (waiting && waiting.dueIn() <= 0) await waiting.run();
    }
  };
  return { next, cancel };
}

/** Elysia's Bun adapter's idle timeout in seconds, which the server keeps (server.ts). */
const SERVER_IDLE_TIMEOUT_S = 30;

/** What `holdOpen` needs of the server the request came through (Bun's; none in app.handle). */
export type TimeoutServer = { timeout?(request: Request, seconds: number): void } | null | undefined;

/**
 * Lifts the server's cut-off for this request while its body is read; the returned function
 * sets it again (for what is left of the answer and the connection's next idle wait).
 */
export function holdOpen(server: TimeoutServer, request: Request): () => void {
  server?.timeout?.(request, 0);
  return () => server?.timeout?.(request, SERVER_IDLE_TIMEOUT_S);
}

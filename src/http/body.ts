/**
 * Reads a JSON request body within a byte limit, with Web-standard streams only.
 * Problems are not thrown here: they are returned as a `BodyProblem` and raised after
 * authentication, so a caller without a key always hears 401 first (see jsonBody below).
 * Long bodies (document uploads) are read chunk by chunk with an idle timeout (readChunks).
 */
import { Elysia } from "elysia";
import { concatBytes, withTimeout } from "../primitives.ts";
import { ApiError } from "./errors.ts";

/** A body that could not be accepted; the transform hook raises it after auth. */
export class BodyProblem {
  constructor(readonly error: ApiError) {}
}

const isJsonType = (contentType: string) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());

/**
 * The body's bytes, or null once it is over `maxBytes` (the rest is not read). A body that
 * breaks off, or sends nothing for `idleMs`, throws (readChunks below: a 400 of its own kind).
 */
export async function readLimited(request: Request, maxBytes: number, idleMs = Infinity): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!request.body) return new Uint8Array();
  const chunks = readChunks(request.body, idleMs);
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let value = await chunks.next(); value; value = await chunks.next()) {
    size += value.byteLength;
    if (size > maxBytes) {
      await chunks.cancel();
      return null;
    }
    parts.push(value);
  }
  return concatBytes(parts, size);
}

/** The parsed JSON body, or a BodyProblem saying what is wrong with it. */
export async function readJsonBody(
  request: Request,
  contentType: string,
  maxBytes: number,
): Promise<unknown | BodyProblem> {
  const problem = (code: ConstructorParameters<typeof ApiError>[0], message: string) =>
    new BodyProblem(new ApiError(code, message));
  const bytes = await readLimited(request, maxBytes);
  if (bytes === null) return problem("payload_too_large", `The request body exceeds ${maxBytes} bytes.`);
  if (bytes.byteLength === 0) return problem("invalid_request", "A JSON request body is required.");
  if (!isJsonType(contentType)) {
    return problem("unsupported_media_type", "Request bodies must be sent with Content-Type: application/json.");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return problem("invalid_json", "The request body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    return problem("invalid_json", `The request body is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * JSON bodies within `maxBytes`. Register after the admission: body problems are raised in
 * the transform stage, after the admission's derives, so 401/429 come before 400/413/415.
 */
export const jsonBody = (maxBytes: number) =>
  new Elysia()
    // GET and DELETE take no body: never read one (docs/api.md#authentication), whatever the plugin's other routes take.
    .onParse({ as: "scoped" }, ({ request, contentType }) =>
      request.method === "GET" || request.method === "DELETE" || request.method === "HEAD"
        ? null
        : readJsonBody(request, contentType, maxBytes),
    )
    .onTransform({ as: "scoped" }, ({ body }) => {
      if (body instanceof BodyProblem) throw body.error;
    });

// Reading a body that may take long (document uploads), chunk by chunk. Bun's server cuts a
// request its `idleTimeout` after the request began however steadily the body arrives (measured
// on Bun 1.4: a body still arriving at 6 MB/s was cut at twice the timeout), so an upload lifts
// that cut-off for itself (`holdOpen`) and keeps its own: at most `idleMs` between two chunks. A
// body that breaks off (the client closed the connection) or stalls ends the upload with a 400 of
// its own kind, so the route can tell it from a fault of the server.

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

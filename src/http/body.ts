/**
 * Reads a JSON request body within a byte limit, with Web-standard streams only.
 * Problems are not thrown here: they are returned as a `BodyProblem` and raised after
 * authentication, so a caller without a key always hears 401 first (see jsonBody below).
 */
import { Elysia } from "elysia";
import { concatBytes } from "../bytes.ts";
import { readChunks } from "./body-stream.ts";
import { ApiError } from "./errors.ts";

/** A body that could not be accepted; the transform hook raises it after auth. */
export class BodyProblem {
  constructor(readonly error: ApiError) {}
}

const isJsonType = (contentType: string) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());

/**
 * The body's bytes, or null once it is over `maxBytes` (the rest is not read). A body that
 * breaks off, or sends nothing for `idleMs`, throws (body-stream.ts: a 400 of its own kind).
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
 * JSON bodies within `maxBytes`. Register after the auth guard: body problems are raised in
 * the transform stage, after the guard's derives, so 401/429 come before 400/413/415.
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

/**
 * One id per request, kept beside the Request object so that every hook, the error handler
 * and the logger see the same value. A well-formed incoming X-Request-Id is kept (tracing
 * across a proxy); anything else is replaced.
 */
import { newId } from "../ids.ts";

const ids = new WeakMap<Request, string>();
const CLIENT_ID_RE = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    const incoming = request.headers.get("x-request-id");
    id = incoming && CLIENT_ID_RE.test(incoming) ? incoming : newId("req");
    ids.set(request, id);
  }
  return id;
}

/**
 * The request's URL. A request whose Host header is empty reaches us with a relative URL, which
 * `new URL()` alone rejects: resolve against a placeholder origin so such requests still get
 * a JSON answer instead of a crash in the error handler.
 */
export function urlOf(request: Request): URL {
  return new URL(request.url, "http://localhost");
}

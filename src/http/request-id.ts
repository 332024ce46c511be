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

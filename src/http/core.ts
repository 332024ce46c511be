/**
 * The HTTP core every feature plugin `.use(requestIdsAndErrors(...))`s: request ids and the one error
 * handler. The hooks are scoped, so they cover that plugin's routes and never leak into a host
 * app that mounts Parley. Also what every request carries beside its Request object (a WeakMap
 * each, so every hook, the error handler and the logger see the same value): its id — a
 * well-formed incoming X-Request-Id is kept (tracing across a proxy), anything else replaced —
 * and what the access log needs, gathered by hooks that run at different stages.
 */
import { Elysia } from "elysia";
import type { Logger } from "../config/logger.ts";
import type { ErrorBody } from "../contract/errors.ts";
import { newId } from "../primitives.ts";
import { errorResponse, shapeErrorsOf } from "./error-handler.ts";

/** Request ids and the error handler, for one feature plugin. */
export const requestIdsAndErrors = (logger: Logger) =>
  new Elysia()
    .onError({ as: "scoped" }, ({ error, code, request }) => errorResponse(error, request, logger, String(code)))
    .derive({ as: "scoped" }, ({ request, set }) => {
      const requestId = requestIdOf(request);
      set.headers["x-request-id"] = requestId;
      return { requestId };
    });

/**
 * The errors of requests whose path matches `paths`, worded in another dialect (the
 * OpenAI-compatible door's). Set before anything else runs (onRequest is global: hence the path
 * test), so whichever plugin's error hook answers them — the host app's, or another feature's
 * scoped one, may come first — the body takes `shape`, with the same status, headers and logging.
 */
export const errorDialect = (paths: RegExp, shape: (body: ErrorBody) => unknown) =>
  new Elysia().onRequest(({ request }) => {
    if (paths.test(urlOf(request).pathname)) shapeErrorsOf(request, shape);
  });

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

const started = new WeakMap<Request, number>();
const statuses = new WeakMap<Request, number>();
const bytes = new WeakMap<Request, number>();
const clients = new WeakMap<Request, string>();

export const markStart = (request: Request) => void started.set(request, performance.now());
export const markStatus = (request: Request, status: number, size?: number) => {
  statuses.set(request, status);
  if (size !== undefined) bytes.set(request, size);
};
/** The socket's address, read when the request arrives (the server may not know it after the answer). */
export const markClient = (request: Request, ip: string | undefined) => void (ip && clients.set(request, ip));
export const socketIp = (request: Request) => clients.get(request);
/** Body bytes of an answer the error handler built, if it built one. */
export const errorBytes = (request: Request) => bytes.get(request);

/** When `markStart` saw the request (performance.now()), for a caller that must not keep the Request. */
export const startOf = (request: Request) => started.get(request);

/** Milliseconds since `markStart`, to 0.1 ms. */
export const elapsedMs = (request: Request): number | undefined => elapsedSince(started.get(request));

/** Milliseconds since `startedAt` (a `startOf` reading), to 0.1 ms. */
export function elapsedSince(startedAt: number | undefined): number | undefined {
  return startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 10) / 10;
}

/** The status the client got: the error handler's, else the returned Response's, else `set.status`. */
export function finalStatus(request: Request, response: unknown, setStatus: unknown): number {
  const fromError = statuses.get(request);
  if (fromError !== undefined) return fromError;
  if (response instanceof Response) return response.status;
  return typeof setStatus === "number" ? setStatus : 200;
}

/**
 * The client's address: the socket's, or X-Forwarded-For's when proxies are trusted. With
 * `trustProxy` = N > 0, N proxies each appended the address they received from: the client is
 * the Nth entry from the right (or the leftmost, if there are fewer). A client cannot spoof past
 * a trusted proxy, because entries it sends itself sit further left.
 */
export function clientIp(request: Request, socketIp: string | undefined, trustProxy: number): string | undefined {
  if (trustProxy > 0) {
    const hops = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (hops.length) return hops[Math.max(0, hops.length - trustProxy)];
  }
  return socketIp;
}

/**
 * The HTTP surface shared by every feature plugin: request ids, the one error handler, JSON
 * bodies read within limits, and the /v1 fallback for unknown routes (404) and methods (405).
 * Each feature plugin `.use(httpCore(...))`s; the hooks are scoped, so they cover that
 * plugin's routes and never leak into a host app that mounts Parley.
 */
import { Elysia, ValidationError } from "elysia";
import { describeError, type Logger } from "../config/logger.ts";
import { markStatus } from "./access-log.ts";
import { BodyProblem, readJsonBody } from "./body.ts";
import { ApiError, toApiError } from "./errors.ts";
import { requestIdOf, urlOf } from "./request-id.ts";

/** Turns Elysia's validation error into our `invalid_request` with the offending field. */
function fromValidation(error: ValidationError): ApiError {
  // A schema's own `error` text wins; by convention it names the field in quotes.
  const custom = (error as unknown as { customError?: unknown }).customError;
  if (typeof custom === "string") {
    return new ApiError("invalid_request", custom, { param: /'([\w.]+)'/.exec(custom)?.[1] });
  }
  const first = (error as unknown as { valueError?: { path?: string; message?: string } }).valueError;
  const param = first?.path?.replace(/^\//, "").replace(/\//g, ".") || undefined;
  const where = error.type === "query" ? "query parameter" : error.type === "params" ? "path parameter" : "field";
  const message = param
    ? `Invalid ${where} '${param}': ${first?.message ?? "invalid value"}.`
    : `Invalid request: ${first?.message ?? "invalid value"}.`;
  return new ApiError("invalid_request", message, { param });
}

/** Which ApiError a thrown value (or Elysia's error `code`) stands for. */
function classify(error: unknown, code?: string): ApiError {
  if (error instanceof ValidationError || code === "VALIDATION") {
    const type = (error as ValidationError).type;
    // Our own answer failed its schema: a server fault, not the client's request.
    if (type === "response") return new ApiError("internal_error", "An internal error occurred.", { cause: error });
    // Path ids are opaque: one that cannot even be decoded names nothing, like any unknown id.
    if (type === "params") return new ApiError("not_found", "No such resource.");
    return fromValidation(error as ValidationError);
  }
  if (code === "PARSE") return new ApiError("invalid_json", "The request body could not be parsed.");
  if (code === "NOT_FOUND") return new ApiError("not_found", "No such route.");
  return toApiError(error);
}

/**
 * Maps anything thrown in a route to the standard error response, logging server faults: a 500
 * at error with its stack (a bug or a failing agent), a 503 at warn without one (the database
 * is away, or shutdown cut a reply: expected states, not bugs). Errors go through
 * `describeError`, so query parameters never reach any logger, a host's pino included.
 */
export function errorResponse(error: unknown, request: Request, logger: Logger, code?: string): Response {
  const api = classify(error, code);
  const requestId = requestIdOf(request);
  // upstream_error/upstream_timeout (502/504) are the model provider's: the model agent logged them once.
  if (api.status >= 500 && !api.code.startsWith("upstream_")) {
    const fields = { request_id: requestId, method: request.method, path: urlOf(request).pathname, code: api.code };
    if (api.status === 503) {
      const cause = api.options.cause;
      logger.warn({ ...fields, reason: api.message, ...(cause === undefined ? {} : { error: withoutStack(describeError(cause)) }) }, "request failed");
    } else {
      logger.error({ ...fields, error: describeError(api.options.cause ?? api) }, "request failed");
    }
  }
  markStatus(request, api.status);
  return api.respond(requestId, { "x-request-id": requestId });
}

/** An expected failure's description, without stacks (at any depth of causes). */
function withoutStack(d: unknown): unknown {
  if (!d || typeof d !== "object") return d;
  const { stack: _stack, cause, ...rest } = d as Record<string, unknown>;
  return cause === undefined ? rest : { ...rest, cause: withoutStack(cause) };
}

/** Request ids and the error handler, for one feature plugin. */
export const httpCore = (logger: Logger) =>
  new Elysia()
    .onError({ as: "scoped" }, ({ error, code, request }) => errorResponse(error, request, logger, String(code)))
    .derive({ as: "scoped" }, ({ request, set }) => {
      const requestId = requestIdOf(request);
      set.headers["x-request-id"] = requestId;
      return { requestId };
    });

/**
 * JSON bodies within `maxBytes`. Register after the auth guard: body problems are raised in
 * the transform stage, after the guard's derives, so 401/429 come before 400/413/415.
 */
export const jsonBody = (maxBytes: number) =>
  new Elysia()
    .onParse({ as: "scoped" }, ({ request, contentType }) => readJsonBody(request, contentType, maxBytes))
    .onTransform({ as: "scoped" }, ({ body }) => {
      if (body instanceof BodyProblem) throw body.error;
    });

/** A route as the fallback sees it: method plus path with `:params`, relative to the API's base. */
export interface RouteRef {
  method: string;
  path: string;
}

/**
 * Catch-all for the API prefix: 405 with Allow when the path exists, else 404. The body is
 * never read (`parse: "none"`): a route that does not exist must not spend memory on it, nor
 * answer 400 for it.
 */
export const fallback = (logger: Logger, routes: () => RouteRef[]) => {
  let patterns: { method: string; re: RegExp }[] | undefined;
  return new Elysia().use(httpCore(logger)).all(
    "/*",
    ({ request, route }) => {
      patterns ??= routes()
        .filter((r) => r.method !== "ALL")
        .map((r) => ({ method: r.method, re: pathPattern(r.path) }));
      // `route` is this catch-all as mounted ("/api/v1/*" under a host's "/api"): what follows its
      // base is the path within the API. One trailing slash is as good as none, like on real routes.
      const pathname = urlOf(request).pathname;
      const path = pathname.slice(route.length - 2).replace(/\/$/, "");
      const allowed = patterns.filter((r) => r.re.test(path)).map((r) => r.method);
      if (allowed.length > 0 && !allowed.includes(request.method)) {
        throw new ApiError("method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(", ")}.`, {
          headers: { allow: allowed.join(", ") },
        });
      }
      throw new ApiError("not_found", `No route ${request.method} ${clip(pathname)}.`);
    },
    { parse: "none" },
  );
};

/** An echo of client input in a message, cut to a readable length. */
export const clip = (s: string, max = 80) => (s.length > max ? `${s.slice(0, max)}…` : s);

function pathPattern(path: string): RegExp {
  const body = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}$`);
}

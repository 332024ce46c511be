/**
 * The one error mapping: anything thrown in a route (our ApiError, Elysia's validation and parse
 * errors, database failures) becomes the standard JSON error answer with its request id.
 */
import { ValidationError } from "elysia";
import { describeError, type Logger } from "../config/logger.ts";
import type { ErrorBody } from "../contract/errors.ts";
import {
  isDiskFull,
  isStorageFault,
  isStoreUnavailable,
  isTooManyParameters,
  isTransientConflict,
  isUnstorableText,
} from "../db/errors.ts";
import { markStatus, requestIdOf, urlOf } from "./core.ts";
import { ApiError, UNAVAILABLE_RETRY_AFTER_S } from "./errors.ts";

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

/** Requests whose errors another wire dialect words (the OpenAI-compatible door): its body shape. */
const shapes = new WeakMap<Request, (body: ErrorBody) => unknown>();

/**
 * Words this request's error body in another dialect (same status, headers and logging). Set it
 * in an `onRequest` hook: whichever plugin's error hook answers (a host's, or a sibling feature's
 * scoped one), the body follows the request.
 */
export function shapeErrorsOf(request: Request, shape: (body: ErrorBody) => unknown): void {
  shapes.set(request, shape);
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
      logger.warn(
        {
          ...fields,
          reason: api.message,
          ...(cause === undefined ? {} : { error: withoutStack(describeError(cause)) }),
        },
        "request failed",
      );
    } else {
      logger.error({ ...fields, error: describeError(api.options.cause ?? api) }, "request failed");
    }
  }
  const response = api.respond(requestId, { "x-request-id": requestId }, shapes.get(request));
  markStatus(request, api.status, Number(response.headers.get("content-length")));
  return response;
}

/** An expected failure's description, without stacks (at any depth of causes). */
function withoutStack(d: unknown): unknown {
  if (!d || typeof d !== "object") return d;
  const { stack: _stack, cause, ...rest } = d as Record<string, unknown>;
  return cause === undefined ? rest : { ...rest, cause: withoutStack(cause) };
}

/** Maps anything thrown to an ApiError, hiding internals behind `internal_error`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isStoreUnavailable(error)) {
    return new ApiError("service_unavailable", "The database is unavailable; retry shortly.", {
      cause: error,
      headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_S) },
    });
  }
  if (isStorageFault(error)) {
    const message = isDiskFull(error)
      ? "The server's disk is full: writes are refused until space is freed; retry later."
      : "The store cannot read or write its data right now; retry shortly.";
    return new ApiError("service_unavailable", message, {
      cause: error,
      headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_S) },
    });
  }
  // A lock cycle or serialisation failure the code did not retry itself: transient, so retryable.
  if (isTransientConflict(error))
    return new ApiError("service_unavailable", "A concurrent change got in the way; retry shortly.", {
      cause: error,
      headers: { "retry-after": "1" },
    });
  // Every write that grows with the request is bounded below this; reaching it anyway is still
  // the request's size, and retrying the same request cannot help.
  if (isTooManyParameters(error))
    return new ApiError("payload_too_large", "The request holds too many items to store at once; send fewer.", {
      cause: error,
    });
  // Wherever a NUL reached a statement (every text parameter is one way in), the request is at fault.
  if (isUnstorableText(error))
    return new ApiError("invalid_request", "The request contains a character that cannot be stored: NUL (U+0000).");
  return new ApiError("internal_error", "An internal error occurred.", { cause: error });
}

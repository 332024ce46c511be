/**
 * The error meant for the client. Every non-2xx answer and every SSE `error` event is built from
 * an `ApiError`; its code (contract/errors.ts) decides the status and type. Services throw it for
 * client-facing failures, and a plain Error for programmer or configuration errors.
 */

import { CODES, type ErrorBody, type ErrorCode, type ErrorPayload } from "../contract/errors.ts";
import { utf8Length } from "../primitives.ts";

/** An echo of client input in a message, cut to a readable length. */
export const clip = (s: string, max = 80) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** Retry-After (seconds) of a 503 for a store that is away or cannot write. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/** An error meant for the client: its code decides the status; `headers` ride along. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { param?: string; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ApiError";
    this.status = CODES[code].status;
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = { type: CODES[this.code].type, code: this.code, message: this.message };
    if (this.options.param) payload.param = this.options.param;
    return payload;
  }

  /** The HTTP answer. (Not named `toResponse`: Elysia would call that itself, without a request id.) */
  respond(
    requestId: string,
    headers: Record<string, string> = {},
    shape: (body: ErrorBody) => unknown = (b) => b,
  ): Response {
    const body: ErrorBody = { error: this.toPayload(), request_id: requestId };
    const text = JSON.stringify(shape(body));
    return new Response(text, {
      status: this.status,
      headers: {
        ...headers,
        ...this.options.headers,
        "content-type": "application/json; charset=utf-8",
        "content-length": String(utf8Length(text)),
      },
    });
  }
}

/** 404 `not_found` for the `what` named `id` ("No knowledge base 'kb_…'."), naming the parameter. */
export const notFound = (what: string, id: string, param?: string): ApiError =>
  new ApiError("not_found", `No ${what} '${clip(id)}'.`, param === undefined ? {} : { param });

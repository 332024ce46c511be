/**
 * The one closed set of error codes. Every non-2xx answer and every SSE `error` event is built
 * from an `ApiError`, so a code always maps to the same status and type.
 */

const CODES = {
  invalid_request: { status: 400, type: "invalid_request_error" },
  invalid_json: { status: 400, type: "invalid_request_error" },
  invalid_cursor: { status: 400, type: "invalid_request_error" },
  unauthorized: { status: 401, type: "authentication_error" },
  not_found: { status: 404, type: "invalid_request_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  idempotency_in_progress: { status: 409, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  idempotency_key_reused: { status: 422, type: "invalid_request_error" },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  daily_quota_exceeded: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
  generation_failed: { status: 500, type: "api_error" },
  service_unavailable: { status: 503, type: "api_error" },
  upstream_error: { status: 502, type: "api_error" },
  upstream_timeout: { status: 504, type: "api_error" },
} as const;

/** A code from the closed set; see docs/api.md#errors. */
export type ErrorCode = keyof typeof CODES;
export const ERROR_CODES = Object.keys(CODES) as ErrorCode[];

/** The `error` member of every error body and of the SSE `error` event. */
export interface ErrorPayload {
  type: string;
  code: ErrorCode;
  message: string;
  param?: string;
}

/** The JSON body of every non-2xx response. */
export interface ErrorBody {
  error: ErrorPayload;
  request_id: string;
}

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
  respond(requestId: string, headers: Record<string, string> = {}): Response {
    const body: ErrorBody = { error: this.toPayload(), request_id: requestId };
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { ...headers, ...this.options.headers, "content-type": "application/json; charset=utf-8" },
    });
  }
}

/**
 * postgres.js / PGlite / socket failures that mean "no connection to the database right now":
 * any failure to obtain or keep a connection is a 503, never a 500.
 */
export function isStoreUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = String(e.code ?? e.errno ?? "");
  const message = String(e.message ?? "");
  if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|CONNECT_TIMEOUT|CONNECTION_\w+)$/.test(code)) return true;
  // 57P01..05: admin/crash shutdown, cannot connect now, idle-session timeout; 08xxx: connection
  // exceptions; 53300: too many connections; 3D000: no such database; 28xxx: login refused.
  if (/^(57P0[1-5]|08\w{3}|53300|3D000|28\w{3})$/.test(code)) return true;
  // 55000 is a broad class ("object not in prerequisite state"); only its connection case counts:
  // ALTER DATABASE … ALLOW_CONNECTIONS false.
  if (code === "55000" && /not currently accepting connections/i.test(message)) return true;
  return /PGlite is closed|connection (?:terminated|ended|closed)|write CONNECTION_CLOSED|timeout exceeded when trying to connect/i.test(message);
}

/** The SQLSTATE of a database error, looking through Drizzle's wrapper. */
export function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Maps anything thrown to an ApiError, hiding internals behind `internal_error`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isStoreUnavailable(error) || isStoreUnavailable((error as { cause?: unknown })?.cause)) {
    return new ApiError("service_unavailable", "The database is unavailable; retry shortly.", { cause: error });
  }
  return new ApiError("internal_error", "An internal error occurred.", { cause: error });
}

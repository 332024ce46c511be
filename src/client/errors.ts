/** The error every client call throws: a non-2xx answer, an unreadable answer, no answer at all. */
import type { ErrorCode } from "../contract/errors.ts";

/** The server's closed set of error codes (docs/api.md#errors). */
export type ServerErrorCode = ErrorCode;

/** What the client itself reports when there is no usable answer from the API. */
export type ClientErrorCode = "connection_error" | "timeout" | "invalid_response" | "stream_interrupted" | "http_error";

/** Every `ParleyError.code`: the server's codes plus the client's own. */
export type ParleyErrorCode = ServerErrorCode | ClientErrorCode;

/**
 * A failed API call: the server's error code, HTTP status, request id and, on 429, Retry-After.
 *
 * `code` is the server's error code (`unauthorized`, `not_found`, `invalid_request`,
 * `rate_limit_exceeded`, …) when the server answered with its JSON error body; otherwise one of
 * the client's own codes:
 *
 * - `connection_error` (status 0): no response — the connection was refused or dropped, DNS
 *   failed, TLS failed (after the retries). The underlying error is `cause`.
 * - `timeout` (status 0): no complete answer within the `timeout` (for a stream: no byte for
 *   that long — the server sends a keep-alive every 15 s). Not retried.
 * - `invalid_response`: a response that is not what the API sends — a 2xx whose body is not the
 *   expected JSON (a captive portal's HTML page, say), or a stream event whose data is not JSON.
 *   `status` is the response's status.
 * - `stream_interrupted` (status 0): a `chatStream` that closed or broke before its `end` or
 *   `error` event; a network failure is `cause`.
 * - `http_error`: a non-2xx whose body is not the API's JSON error (a proxy's 502 page, say);
 *   `status` is the response's and `message` starts with its text.
 *
 * A caller's own abort is never a ParleyError: `chat` rejects with the AbortError, and
 * `chatStream` simply ends its iteration.
 */
export class ParleyError extends Error {
  constructor(
    readonly status: number,
    readonly code: ParleyErrorCode,
    message: string,
    readonly details: { type?: string; param?: string; requestId?: string; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, "cause" in details ? { cause: details.cause } : undefined);
    this.name = "ParleyError";
  }

  get type(): string | undefined {
    return this.details.type;
  }
  get param(): string | undefined {
    return this.details.param;
  }
  get requestId(): string | undefined {
    return this.details.requestId;
  }
  /** Seconds to wait before retrying (from Retry-After, as seconds or an HTTP-date; mostly 429). */
  get retryAfter(): number | undefined {
    return this.details.retryAfter;
  }

  /** Builds the error from a non-2xx response, whatever its body. */
  static async fromResponse(res: Response): Promise<ParleyError> {
    const text = await res.text().catch(() => "");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // not our JSON error body (a proxy's page, say): keep the status and the text
    }
    // `null`, an array, `{"error": "…"}`: whatever is not the API's shape counts as absent.
    const error = field(body, "error");
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    // Trusted as the closed set: the server only sends codes from it.
    const code = str(field(error, "code")) as ServerErrorCode | undefined;
    return new ParleyError(
      res.status,
      code ?? "http_error",
      str(field(error, "message")) ?? (text.slice(0, 200) || `HTTP ${res.status}`),
      {
        type: str(field(error, "type")),
        param: str(field(error, "param")),
        requestId: str(field(body, "request_id")) ?? requestIdOf(res),
        retryAfter: retryAfterSeconds(res.headers.get("retry-after")),
      },
    );
  }
}

/** `obj[key]` when `obj` is a (non-array) object, else undefined. */
function field(obj: unknown, key: string): unknown {
  return typeof obj === "object" && obj !== null && !Array.isArray(obj)
    ? (obj as Record<string, unknown>)[key]
    : undefined;
}

/** The response's X-Request-Id, if any. */
export const requestIdOf = (res: Response): string | undefined => res.headers.get("x-request-id") ?? undefined;

/**
 * Retry-After as seconds from now: delay-seconds as given, an HTTP-date as the (rounded up,
 * never negative) time until then; undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  // Every HTTP-date form names its day and month; requiring a letter keeps Date.parse away from
  // bare numbers, which some engines read as years.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}

/**
 * What went wrong with a provider call, in terms Parley decides on: retry or not, which code the
 * client gets, what the log says. The provider's free text never reaches the client nor the log:
 * it may quote the user's message (a 400 about the content) or echo the key (a 401). The log
 * gets the status, the provider's error type and code, and its request id.
 */
import { APICallError } from "ai";
import { ApiError } from "../../http/errors.ts";

export type FailureKind =
  | "unreachable"
  | "http"
  | "stream_error"
  | "incomplete"
  | "timeout_first"
  | "timeout_idle"
  | "other";

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly detail: {
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
      providerType?: string;
      providerCode?: string;
      providerRequestId?: string;
    } = {},
  ) {
    super(`upstream ${kind}${detail.status ? ` ${detail.status}` : ""}`);
    this.name = "UpstreamFailure";
  }

  get retryable(): boolean {
    if (this.kind === "unreachable") return true;
    const s = this.detail.status;
    if (s === 401 || s === 403) return false;
    return (
      this.kind !== "incomplete" &&
      !this.kind.startsWith("timeout") &&
      (this.detail.retryable === true || s === 429 || (s !== undefined && s >= 500))
    );
  }

  /** Whether the provider refused the credentials: an operator problem, logged as an error. */
  get refusedKey(): boolean {
    return this.detail.status === 401 || this.detail.status === 403;
  }

  /** The client's error: 504 for timeouts, 502 for the rest; never the provider's own words. */
  toApiError(timeouts: { timeoutMs: number; idleTimeoutMs: number }): ApiError {
    const error = this.clientError(timeouts);
    // The kind travels as the cause: the model-error metric counts by it (chat/observe.ts).
    Object.defineProperty(error, "cause", { value: this, configurable: true });
    return error;
  }

  private clientError(timeouts: { timeoutMs: number; idleTimeoutMs: number }): ApiError {
    const s = this.detail.status;
    switch (this.kind) {
      case "timeout_first":
        return new ApiError(
          "upstream_timeout",
          `The model provider did not start the reply within ${timeouts.timeoutMs} ms.`,
        );
      case "timeout_idle":
        return new ApiError(
          "upstream_timeout",
          `The model provider stopped sending the reply for ${timeouts.idleTimeoutMs} ms.`,
        );
      case "unreachable":
        return new ApiError("upstream_error", "The model provider could not be reached.");
      case "incomplete":
        return new ApiError("upstream_error", "The model provider's stream ended before the reply was complete.");
      case "stream_error":
        return new ApiError("upstream_error", "The model provider reported an error during the reply.");
      case "http":
        return new ApiError(
          "upstream_error",
          this.refusedKey
            ? `The model provider refused Parley's credentials (HTTP ${s}).`
            : `The model provider answered with HTTP ${s}.`,
        );
      default:
        return new ApiError("upstream_error", "The call to the model provider failed.");
    }
  }
}

/** Classifies what the AI SDK threw or streamed as an error part. */
export function classify(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const e = error as {
    name?: string;
    message?: string;
    statusCode?: number;
    isRetryable?: boolean;
    data?: any;
    responseBody?: string;
  };
  const providerType =
    typeof e?.data?.error?.type === "string"
      ? e.data.error.type
      : typeof e?.data?.type === "string"
        ? e.data.type
        : undefined;
  const code = e?.data?.error?.code ?? e?.data?.code;
  const providerCode = typeof code === "string" || typeof code === "number" ? token(String(code)) : undefined;
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) return new UpstreamFailure("unreachable", { retryable: true });
    const headers = error.responseHeaders ?? {};
    const requestId = headers["x-request-id"] ?? headers["request-id"];
    return new UpstreamFailure("http", {
      status: error.statusCode,
      retryable: error.isRetryable,
      retryAfterMs: retryAfterMs(error.responseHeaders),
      providerType: providerType === undefined ? undefined : token(providerType),
      providerCode,
      providerRequestId: requestId ? token(requestId) : undefined,
    });
  }
  if (e?.name === "AI_StreamProviderError") {
    return new UpstreamFailure("stream_error", {
      status: e.statusCode,
      retryable: e.isRetryable,
      providerType: providerType === undefined ? undefined : token(providerType),
      providerCode,
    });
  }
  if (e?.name === "AI_InvalidResponseDataError" && /without a finish reason/i.test(e.message ?? ""))
    return new UpstreamFailure("incomplete");
  return new UpstreamFailure("other", { providerType: e?.name });
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers["retry-after"];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** An identifier-like value (type, code, request id), or undefined when it looks like free text. */
const token = (v: string): string | undefined => (/^[\w.:-]{1,100}$/.test(v) ? v : undefined);

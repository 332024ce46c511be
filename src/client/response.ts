/**
 * What a result carries of the HTTP response it came from: `result.response` — the request id
 * (quote it when reporting a problem), the rate-limit state and every header. Attached as a
 * non-enumerable property (as Stripe's `lastResponse`), so results still print, compare and
 * serialise as the plain API objects they are.
 */

/** The key's rate-limit state after this request: the window with the least room left (X-RateLimit-*). */
export interface RateLimitState {
  /** Requests allowed in that window. */
  limit: number;
  /** Requests left in it. */
  remaining: number;
  /** Unix time (seconds) when it frees a slot (minute) or resets (day). */
  reset: number;
}

/** The response a result came from. */
export interface ResponseInfo {
  status: number;
  /** `X-Request-Id`: the server's id for this request. */
  requestId?: string;
  /** Undefined when the response had no rate-limit headers (e.g. an unauthenticated route). */
  rateLimit?: RateLimitState;
  headers: Headers;
}

/** A result with the response it came from. */
export type WithResponse<T> = T & { readonly response: ResponseInfo };

export function responseInfo(res: Response): ResponseInfo {
  const h = res.headers;
  const num = (name: string) => {
    const v = h.get(name);
    return v !== null && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
  };
  const limit = num("x-ratelimit-limit");
  const remaining = num("x-ratelimit-remaining");
  const reset = num("x-ratelimit-reset");
  return {
    status: res.status,
    requestId: h.get("x-request-id") ?? undefined,
    rateLimit:
      limit !== undefined && remaining !== undefined && reset !== undefined ? { limit, remaining, reset } : undefined,
    headers: h,
  };
}

/** `value` with `response` attached (non-enumerable, read-only). */
export function withResponse<T extends object>(value: T, res: Response): WithResponse<T> {
  return Object.defineProperty(value, "response", { value: responseInfo(res), enumerable: false }) as WithResponse<T>;
}

/**
 * Rate-limit headers: the IETF httpapi draft's `RateLimit-Policy` / `RateLimit` (both windows)
 * and the common `X-RateLimit-*` trio (for the window with the least room left).
 * See README "Rate limits" for the exact semantics.
 */
import type { Decision } from "./service.ts";

const secs = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

export function rateLimitHeaders(d: Decision, now: number): Record<string, string> {
  // The window a client should watch: the one that refused, else the one with the least room
  // left; on a tie the one that frees later (when both are spent, waiting out the minute is not enough).
  const tight = d.refusedBy
    ? d[d.refusedBy]
    : d.minute.remaining < d.day.remaining ||
        (d.minute.remaining === d.day.remaining && d.minute.resetMs >= d.day.resetMs)
      ? d.minute
      : d.day;
  const headers: Record<string, string> = {
    "ratelimit-policy": `"minute";q=${d.minute.limit};w=60, "day";q=${d.day.limit};w=86400`,
    ratelimit: `"minute";r=${d.minute.remaining};t=${secs(d.minute.resetMs)}, "day";r=${d.day.remaining};t=${secs(d.day.resetMs)}`,
    "x-ratelimit-limit": String(tight.limit),
    "x-ratelimit-remaining": String(tight.remaining),
    "x-ratelimit-reset": String(Math.ceil((now + tight.resetMs) / 1000)),
  };
  if (!d.allowed && d.retryAfterMs !== undefined) headers["retry-after"] = String(secs(d.retryAfterMs));
  return headers;
}

/**
 * Opt-in CORS for the standalone server (`CORS_ORIGINS`: exact origins, or `*`). Preflights are
 * answered in `onRequest`, before routing, auth and limits: a browser's OPTIONS carries no key
 * and must never count against one. Embedders mount the plugin in their own app and use their
 * own CORS (e.g. @elysiajs/cors), so this lives beside the app, not in the plugin.
 */
import { type CorsOrigins, originAllowed } from "../config/cors-origins.ts";

/** Headers a browser client sends: the key, JSON bodies, idempotent retries, SSE resume. */
const ALLOW_HEADERS =
  "Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Request-Id, X-Parley-Conversation-Id, Mcp-Protocol-Version, Mcp-Session-Id";
const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
/** What a page may read: the limits, when to retry, and the id to quote in a report. */
const EXPOSE_HEADERS =
  "RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, X-Parley-Conversation-Id, Mcp-Session-Id";
/**
 * SDK headers a page may send besides ours: the `openai` SDKs' `X-Stainless-*` (their names
 * change with SDK versions, so they are matched, not listed). The key is a header, never a
 * cookie, so allowing them exposes nothing.
 */
const SDK_HEADER = /^x-stainless-[a-z0-9-]+$/;
/** Browsers cap this anyway (Chromium: 2 h). */
const MAX_AGE = "7200";

/**
 * CORS headers for a request from `origin`, or null when it is not allowed (then the browser
 * blocks the page from reading the answer; the server still answers as it would anyway).
 */
export function corsHeaders(origins: CorsOrigins, origin: string | null): Record<string, string> | null {
  if (!origin) return null;
  if (origins === "*") return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSE_HEADERS };
  if (!originAllowed(origins, origin)) return null;
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSE_HEADERS, vary: "Origin" };
}

/**
 * The headers of every answer (not a preflight) under `origins`: with a list, the answer depends
 * on the request's Origin, so `Vary: Origin` goes on every answer — to listed, unlisted and
 * absent origins alike — or a shared cache could hand one origin's answer to another.
 */
export function corsAnswerHeaders(origins: CorsOrigins, origin: string | null): Record<string, string> {
  const base = corsHeaders(origins, origin);
  return origins === "*" ? (base ?? {}) : { ...base, vary: "Origin" };
}

/** A preflight: OPTIONS with Origin and Access-Control-Request-Method. */
export const isPreflight = (request: Request) =>
  request.method === "OPTIONS" && request.headers.has("origin") && request.headers.has("access-control-request-method");

/** The preflight's answer: 204 with the allowed methods and headers, or 204 without CORS headers (refused). */
export function preflightResponse(origins: CorsOrigins, request: Request, requestId: string): Response {
  const base = corsHeaders(origins, request.headers.get("origin"));
  const headers: Record<string, string> = { "x-request-id": requestId, vary: "Origin, Access-Control-Request-Headers" };
  if (base) {
    Object.assign(headers, base, {
      "access-control-allow-methods": ALLOW_METHODS,
      "access-control-allow-headers": allowedHeaders(request),
      "access-control-max-age": MAX_AGE,
    });
    delete headers["access-control-expose-headers"];
    headers.vary = "Origin, Access-Control-Request-Headers";
  }
  return new Response(null, { status: 204, headers });
}

/** Our headers, plus the SDK headers this preflight asks for. */
function allowedHeaders(request: Request): string {
  const asked = (request.headers.get("access-control-request-headers") ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => SDK_HEADER.test(h));
  return [ALLOW_HEADERS, ...new Set(asked)].join(", ");
}

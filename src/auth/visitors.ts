/**
 * The gate's part for public keys, run BEFORE the key's own admission so that a visitor over
 * its limits never spends the key's plan: the key is read (live, public), the page's Origin
 * checked against the key's allowed origins (and the token's own), the route against what
 * visitors may do, then the visitor's and the client IP's limits (ratelimit/visitors.ts). The
 * answer is readable by the page (CORS for that origin) from the moment its origin is known good,
 * refusals included, so the widget can say why.
 */

import { and, eq, isNull, sql } from "drizzle-orm";
import { apiKeys } from "../db/schema.ts";
import { clientIp, socketIp } from "../http/core.ts";
import { corsHeaders } from "../http/cors.ts";
import { ApiError } from "../http/errors.ts";
import { admitSubjects, rateLimitHeaders, type Subject, utcDay } from "../ratelimit/index.ts";
import type { AdmissionDeps } from "./index.ts";
import { findKeyByHash, unauthorized } from "./keys.ts";
import { REFRESH_WINDOW_MS, type VisitorClaims } from "./visitor-token.ts";

/** Which callers a route takes besides chat and admin keys. */
export interface Audience {
  /** Visitor tokens, on every route of the plugin or those the predicate picks (their own conversations). */
  visitors?: boolean | ((request: Request) => boolean);
  /** Public keys themselves (and visitor tokens, to refresh): the widget's session routes; other keys are refused. */
  publicKey?: boolean;
}

/** The credential a request presented, as the gate reads it (auth/keys.ts). */
export interface Presented {
  hash: string;
  /** A `pk_…` secret or a visitor token: a public key's. */
  publicKey: boolean;
  claims?: VisitorClaims & { expired: boolean };
}

const READS = new Set(["GET", "HEAD"]);
const denied = (message: string) => new ApiError("permission_denied", message);

/** Refuses what a public key's caller may not do here; returns the visitor, if the token named one. */
export async function admitPublicKey(
  deps: AdmissionDeps,
  request: Request,
  presented: Presented,
  audience: Audience,
  headers: Record<string, string | number>,
): Promise<{ id: string; origin: string } | undefined> {
  const at = deps.now();
  const key = await findKeyByHash(deps.db, presented.hash, utcDay(at));
  if (!key?.widget) throw unauthorized("Invalid or revoked API key.");
  const origin = request.headers.get("origin");
  const allowed = origin !== null && key.widget.allowed_origins.includes(origin);
  if (allowed) Object.assign(headers, corsHeaders([origin], origin), { vary: "Origin" });
  const claims = presented.claims;
  if (claims) {
    const window = audience.publicKey ? REFRESH_WINDOW_MS : 0;
    if (claims.expiresAt + window <= at)
      throw new ApiError(
        "token_expired",
        `This visitor token expired at ${new Date(claims.expiresAt).toISOString()}; open a new session (POST /v1/widget/sessions).`,
        { headers: { "www-authenticate": 'Bearer realm="parley", error="invalid_token"' } },
      );
  }
  // A browser sends Origin with every cross-origin request and every POST; a page on Parley's
  // own origin sends none with its GETs. A visitor token's GET without one is its own page's
  // (another site's page cannot make the browser drop it, and a script outside a browser could
  // send any Origin anyway): it is taken as the token's origin.
  const sameOriginRead = claims !== undefined && origin === null && READS.has(request.method);
  if (!sameOriginRead && (!allowed || (claims && claims.origin !== origin)))
    throw denied(
      origin === null
        ? "A public key is used from a web page: this request has no Origin header."
        : "This page's origin is not allowed for this public key (its allowed_origins).",
    );
  if (!claims && !audience.publicKey)
    throw denied(
      "A public key only opens visitor sessions (POST /v1/widget/sessions); send the visitor token the session returns.",
    );
  if (claims && !audience.publicKey && !visitorsMay(audience, request))
    throw denied(
      "A visitor token may chat, resume, stop and rate its replies, and read its own conversations; not this.",
    );
  const subjects: Subject[] = [
    ...(claims
      ? [{ subject: `v:${claims.visitorId}`, limits: { rpm: key.widget.visitor_rpm, rpd: key.widget.visitor_rpd } }]
      : []),
    {
      subject: `ip:${clientIp(request, socketIp(request), deps.options.trustProxy) ?? "unknown"}`,
      limits: { rpm: key.widget.ip_rpm, rpd: key.widget.ip_rpd },
    },
  ];
  const decision = await admitSubjects(deps.db, key.id, subjects, at);
  const limits = rateLimitHeaders(decision, at);
  if (!decision.allowed) {
    deps.metrics?.refusals.inc({ window: decision.refusedBy === "day" ? "visitor_day" : "visitor_minute" });
    throw new ApiError(
      decision.refusedBy === "day" ? "daily_quota_exceeded" : "rate_limit_exceeded",
      decision.refusedBy === "day"
        ? `This ${claims ? "visitor" : "address"} reached its ${decision.day.limit} requests for today; it resets at midnight UTC.`
        : `Too many requests from this ${claims ? "visitor" : "address"}: ${decision.minute.limit} per minute; retry after ${limits["retry-after"]} s.`,
      { headers: limits },
    );
  }
  // The visitor's own windows are what its page should watch (the key's plan is not its business).
  Object.assign(headers, limits);
  return claims ? { id: claims.visitorId, origin: claims.origin } : undefined;
}

const visitorsMay = ({ visitors }: Audience, request: Request) =>
  typeof visitors === "function" ? visitors(request) : visitors === true;

/**
 * Whether some live public key allows `origin`: a browser's preflight carries no key, so this is
 * what it can be answered on (the request itself is then checked against its own key's origins).
 */
export async function publicKeyAllows(db: AdmissionDeps["db"], origin: string): Promise<boolean> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(eq(apiKeys.role, "public"), isNull(apiKeys.revokedAt), sql`${apiKeys.widget}->'allowed_origins' ? ${origin}`),
    )
    .limit(1);
  return rows.length > 0;
}

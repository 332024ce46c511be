/**
 * The gate every /v1 route goes through, in this order: the Bearer key is resolved to its
 * live key (401 otherwise), then the key's limits admit the request or answer 429, then a query
 * parameter given twice is refused (400), then a request other than GET or HEAD while the store
 * refuses writes (its disk is nearly full: 503). All run as
 * scoped derives, i.e. before the body is validated, so every authenticated request counts.
 */
import { Elysia } from "elysia";
import type { ParleyOptions } from "../config/options.ts";
import type { Db } from "../db/client.ts";
import { isDiskFull } from "../db/errors.ts";
import { urlOf } from "../http/core.ts";
import { ApiError, clip, UNAVAILABLE_RETRY_AFTER_S } from "../http/errors.ts";
import type { Metrics } from "../metrics/index.ts";
import {
  type ApiKeyInfo,
  admitKey,
  type Decision,
  type RefusalCount,
  rateLimitHeaders,
  tokenBudget,
  tokenHeaders,
  utcDay,
} from "../ratelimit/index.ts";
import { inSpan, type Tracing } from "../tracing/index.ts";
import { type Credential, findKeyByHash, presentedCredential, touchKey, unauthorized } from "./keys.ts";
import { type Audience, admitPublicKey } from "./visitors.ts";

export type { ApiKeyInfo } from "../ratelimit/index.ts";
export type { Credential } from "./keys.ts";

/** What the gate needs. */
export interface AdmissionDeps {
  db: Db;
  metrics?: Metrics;
  /** The gate's span goes under the request's (tracing/). */
  tracing?: Tracing;
  options: ParleyOptions;
  now: () => number;
  /** usage/'s part of the gate: counting refused requests (composition passes usage/'s). */
  refusals: RefusalCount;
  /** Why requests that change data are refused now (the store's disk is nearly full), or undefined. */
  writesRefused?: () => string | undefined;
}

/** Methods that only read: served while writes are refused. */
const READS = new Set(["GET", "HEAD"]);

/**
 * An expired key gets 401 `key_expired` (the gate never admits nor counts it); a live one has
 * its `last_used_at` moved, at most once a minute (a conditional UPDATE: keys.ts).
 */
async function checkLive(db: Db, apiKey: ApiKeyInfo, at: number): Promise<void> {
  if (apiKey.expiresAt && apiKey.expiresAt.getTime() <= at) {
    throw new ApiError("key_expired", `This API key expired at ${apiKey.expiresAt.toISOString()}.`, {
      headers: { "www-authenticate": 'Bearer realm="parley", error="invalid_token"' },
    });
  }
  await touchKey(db, apiKey, new Date(at));
}

/** The request's key, admitted by its limits (a public key's caller passes its own checks first: visitors.ts). */
async function admit(deps: AdmissionDeps, ctx: GateContext, need: Need) {
  const presented = await presentedCredential(deps.db, ctx, need.credential, deps.now());
  const visitor = presented.publicKey
    ? await admitPublicKey(deps, ctx.request, presented, need, ctx.headers)
    : undefined;
  const gate = await admitHash(deps, presented.hash);
  return visitor ? { ...gate, apiKey: { ...gate.apiKey, visitor } } : gate;
}

async function admitHash({ db, options, now, refusals }: AdmissionDeps, hash: string) {
  if (!options.rateLimit) {
    const at = now();
    const apiKey = await findKeyByHash(db, hash, utcDay(at));
    if (!apiKey) throw unauthorized("Invalid or revoked API key.");
    await checkLive(db, apiKey, at);
    return { apiKey, decision: undefined as Decision | undefined, at };
  }
  // With the limiter on, the key lookup and the admission are one statement (ratelimit/admit.ts).
  const at = now();
  let admission: Awaited<ReturnType<typeof admitKey>>;
  try {
    admission = await admitKey(db, hash, options.plans, at, refusals);
  } catch (error) {
    // Fail closed whatever the cause (down, read-only, out of space…): an unchecked request
    // is never served, and the next request tries the store again.
    const message = isDiskFull(error)
      ? "The server's disk is full: the rate limiter cannot count requests until space is freed; retry later."
      : "The rate limiter's store is unavailable; retry shortly.";
    throw new ApiError("service_unavailable", message, {
      cause: error,
      headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_S) },
    });
  }
  if (!admission) throw unauthorized("Invalid or revoked API key.");
  await checkLive(db, admission.apiKey, at);
  return { apiKey: admission.apiKey, decision: admission.decision as Decision | undefined, at };
}

type Gate = Awaited<ReturnType<typeof admit>>;
/** What the gate reads of a request; `headers` are the answer's (a public key's checks add CORS, limits). */
type GateContext = Parameters<Credential>[0] & { headers: Record<string, string | number> };
/** What a route asks of its callers: a role, another credential, public keys or visitors. */
type Need = { role?: "admin"; credential?: Credential } & Audience;

/** The gate's statement for one request; one span with tracing on (the lookup and the admission are one statement). */
const gateOf = (deps: AdmissionDeps, ctx: GateContext, need: Need = {}): Promise<Gate> =>
  !deps.tracing?.enabled
    ? admit(deps, ctx, need)
    : inSpan(deps.tracing.of(ctx.request), "auth+ratelimit", async (span) => {
        const gate = await admit(deps, ctx, need);
        span.set({
          "parley.key_id": gate.apiKey.id,
          "parley.ratelimit": gate.decision ? "on" : "off",
          "parley.ratelimit.allowed": gate.decision?.allowed,
        });
        return gate;
      });

/**
 * The token budget, then the limiter's decision, for a request the gate read: their headers go
 * into `headers`, a refusal throws its 429. A key at or over its budget was not admitted
 * (ratelimit/admit.ts), so it spent none of its request limits; its refusal was counted by the
 * gate's second statement.
 */
async function enforce(
  { db, metrics, refusals }: Pick<AdmissionDeps, "db" | "metrics" | "refusals">,
  { apiKey, decision, at }: Gate,
  headers: Record<string, string | number>,
): Promise<void> {
  const budget = tokenBudget(apiKey, at);
  if (budget) {
    const tokens = tokenHeaders(budget);
    if (budget.exceeded) {
      metrics?.refusals.inc({ window: "tokens" });
      // Without the limiter there is no gate statement to fold the count into.
      if (!decision) await refusals.one(db, apiKey.id, utcDay(at)).catch(() => {});
      throw new ApiError(
        "token_quota_exceeded",
        `Daily token budget of ${budget.limit} tokens reached; it resets at midnight UTC.`,
        { headers: tokens },
      );
    }
    Object.assign(headers, tokens);
  }
  if (!decision) return;
  const limits = rateLimitHeaders(decision, at);
  if (!decision.allowed) {
    metrics?.refusals.inc({ window: decision.refusedBy ?? "minute" });
    throw decision.refusedBy === "day"
      ? new ApiError(
          "daily_quota_exceeded",
          `Daily quota of ${decision.day.limit} requests reached; it resets at midnight UTC.`,
          { headers: limits },
        )
      : new ApiError(
          "rate_limit_exceeded",
          `Rate limit of ${decision.minute.limit} requests per minute exceeded; retry after ${limits["retry-after"]} s.`,
          { headers: limits },
        );
  }
  // A visitor's answer states its own windows (set by visitors.ts), not its key's plan.
  if (!("ratelimit" in headers)) Object.assign(headers, limits);
}

/**
 * One more request of the caller of `request`, looked up, counted and limited like a request
 * of its own: each call of an MCP JSON-RPC batch after the first (mcp/batch.ts). Returns the
 * headers it would answer with; throws the 401/429 that refuses it.
 */
export async function admitAnother(deps: AdmissionDeps, request: Request): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  await enforce(deps, await gateOf(deps, { request, params: {}, headers }), headers);
  return headers;
}

/**
 * Auth and the limiter are `derive`s on purpose, not `resolve`s: a derive runs in the transform
 * stage, before schema validation (a resolve runs after it), and body problems found while
 * parsing are raised by jsonBody's transform hook, registered after this admission. So a request
 * without a valid key hears 401 and one over its limit 429 before any 400/413/415 about its
 * body, and every authenticated request counts (docs/api.md#order-of-checks). Moving them
 * after validation would let an unauthenticated caller probe the body rules and skip the limiter.
 */
export const admission = (deps: AdmissionDeps, need: Need = {}) =>
  new Elysia()
    .derive({ as: "scoped" }, ({ request, params, set }) =>
      gateOf(deps, { request, params: params as Record<string, string>, headers: set.headers }, need),
    )
    .derive({ as: "scoped" }, async ({ apiKey, decision, at, set }) => {
      await enforce(deps, { apiKey, decision, at }, set.headers);
      return {};
    })
    .derive({ as: "scoped" }, ({ apiKey }) => {
      if (need.role === "admin" && apiKey.role !== "admin") {
        throw new ApiError("permission_denied", `This route needs an admin key; this key's role is '${apiKey.role}'.`);
      }
      if (need.publicKey && apiKey.role !== "public")
        throw new ApiError("permission_denied", "This route takes a public key (pk_…) or its visitor token.");
      // A public key's own requests go only to the session routes (visitors.ts); this also stops
      // a resume token of a visitor's reply, which names the key but no visitor.
      if (apiKey.role === "public" && !apiKey.visitor && !need.publicKey)
        throw new ApiError("permission_denied", "A public key only opens visitor sessions (POST /v1/widget/sessions).");
      return {};
    })
    // A parameter given twice is ambiguous (the schema would check only one value, and the last
    // would win): refused for every parameter, before validation, like limit and after always were.
    .derive({ as: "scoped" }, ({ request }) => {
      const seen = new Set<string>();
      for (const name of urlOf(request).searchParams.keys()) {
        if (seen.has(name))
          throw new ApiError(
            "invalid_request",
            `Query parameter '${clip(name)}' is given more than once; give it once.`,
            {
              param: clip(name),
            },
          );
        seen.add(name);
      }
      return {};
    })
    // Last: a refused write still counted against the key, like any authenticated request.
    .derive({ as: "scoped" }, ({ request }) => {
      const why = READS.has(request.method) ? undefined : deps.writesRefused?.();
      if (!why) return {};
      throw new ApiError(
        "service_unavailable",
        "The server's disk is nearly full: requests that change data are refused until space is freed; reads still work.",
        { cause: new Error(why), headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_S) } },
      );
    });

/**
 * The admission, then the role: a chat key gets 403 `permission_denied` on an admin route. Also a
 * derive (transform stage), so the 403 comes before any complaint about the body, and the
 * refused request still counts against the key's limits like any other. (One instance with all
 * three derives: a scoped hook reaches one level up only, so it cannot be nested in another plugin.)
 */
export const adminAdmission = (deps: AdmissionDeps) => admission(deps, { role: "admin" });
export { createKey, getKey, listKeys, pageKeys, revokeKey, updateKey } from "./keys-admin.ts";
export { checkLimit } from "./limits.ts";
export { ApiKey, ApiKeyList, CreatedApiKey, CreateKey, UpdateKey } from "./model.ts";
export { keyRoutes } from "./routes.ts";
export { issueSetupCode, SETUP_CODE_TTL_MS, withdrawSetupCode } from "./setup.ts";
export { SetupRequest, SetupStatus, setupRoutes } from "./setup-routes.ts";
export { REFRESH_WINDOW_MS, signVisitorToken } from "./visitor-token.ts";
export { publicKeyAllows } from "./visitors.ts";

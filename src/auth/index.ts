/**
 * The gate every /v1 route goes through, in this order: the Bearer key is resolved to its
 * live key (401 otherwise), then the key's limits admit the request or answer 429. Both run as
 * scoped derives, i.e. before the body is validated, so every authenticated request counts.
 */
import { Elysia } from "elysia";
import type { ParleyOptions } from "../config/options.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import type { Metrics } from "../metrics/index.ts";
import { rateLimitHeaders } from "../ratelimit/headers.ts";
import { consume, countRefusal, type Decision } from "../ratelimit/service.ts";
import { tokenBudget, tokenHeaders } from "../ratelimit/tokens.ts";
import { bearerSecret } from "./keys.ts";
import { limitsFor } from "./limits.ts";
import { findKeyBySecret } from "./lookup.ts";

/** What the gate needs. */
export interface GuardDeps {
  db: Db;
  metrics?: Metrics;
  options: ParleyOptions;
  now: () => number;
}

const unauthorized = (message: string) =>
  new ApiError("unauthorized", message, { headers: { "www-authenticate": 'Bearer realm="parley"' } });

/**
 * Auth and the limiter are `derive`s on purpose, not `resolve`s: a derive runs in the transform
 * stage, before schema validation (a resolve runs after it), and body problems found while
 * parsing are raised by jsonBody's transform hook, registered after this guard. So a request
 * without a valid key hears 401 and one over its limit 429 before any 400/413/415 about its
 * body, and every authenticated request counts (docs/api.md#order-of-checks). Moving them
 * after validation would let an unauthenticated caller probe the body rules and skip the limiter.
 */
export const guard = ({ db, options, now, metrics }: GuardDeps) =>
  new Elysia()
    .derive({ as: "scoped" }, async ({ request }) => {
      const header = request.headers.get("authorization");
      if (!header) throw unauthorized("Missing Authorization header; send 'Authorization: Bearer <API key>'.");
      const secret = bearerSecret(header);
      if (!secret) throw unauthorized("Malformed Authorization header; expected 'Bearer prl_…'.");
      const at = now();
      const apiKey = await findKeyBySecret(db, secret, new Date(at).toISOString().slice(0, 10));
      if (!apiKey) throw unauthorized("Invalid or revoked API key.");
      return { apiKey, admittedAt: at };
    })
    .derive({ as: "scoped" }, async ({ apiKey, admittedAt: at, set }) => {
      // The token budget first: a key over it is refused without spending a request of its limits.
      const budget = tokenBudget(apiKey, at);
      if (budget) {
        const headers = tokenHeaders(budget);
        if (budget.exceeded) {
          metrics?.refusals.inc({ window: "tokens" });
          await countRefusal(db, apiKey.id, at).catch(() => {});
          throw new ApiError(
            "token_quota_exceeded",
            `Daily token budget of ${budget.limit} tokens reached; it resets at midnight UTC.`,
            { headers },
          );
        }
        Object.assign(set.headers, headers);
      }
      if (!options.rateLimit) return {};
      let decision: Decision;
      try {
        decision = await consume(db, apiKey.id, limitsFor(apiKey, options.plans), at);
      } catch (error) {
        // Fail closed whatever the cause (down, read-only, out of space…): an unchecked request
        // is never served, and the next request tries the store again.
        throw new ApiError("service_unavailable", "The rate limiter's store is unavailable; retry shortly.", {
          cause: error,
        });
      }
      const headers = rateLimitHeaders(decision, at);
      if (!decision.allowed) {
        metrics?.refusals.inc({ window: decision.refusedBy ?? "minute" });
        throw decision.refusedBy === "day"
          ? new ApiError(
              "daily_quota_exceeded",
              `Daily quota of ${decision.day.limit} requests reached; it resets at midnight UTC.`,
              { headers },
            )
          : new ApiError(
              "rate_limit_exceeded",
              `Rate limit of ${decision.minute.limit} requests per minute exceeded; retry after ${headers["retry-after"]} s.`,
              { headers },
            );
      }
      Object.assign(set.headers, headers);
      return {};
    });

/**
 * ratelimit/: the limiter and the token budget. Its one table, `rate_limits`, is written only by
 * the gate's statement (admit.ts), which reads the key and admits the request in one round trip.
 * service.ts holds the sliding minute log and the day's count, the headers that state the
 * windows, and the daily token budget. auth/ is its caller: the admission every /v1 route goes through.
 */
export { type ApiKeyInfo, admitKey, apiKeyOf, type RefusalCount, type Visitor } from "./admit.ts";
export { type Decision, rateLimitHeaders, utcDay } from "./service.ts";
export { tokenBudget, tokenHeaders, tokensTodaySql } from "./token-budget.ts";
export { admitSubjects, forgetIdleSubjects, type Subject } from "./visitors.ts";

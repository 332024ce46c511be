/**
 * The optional daily token budget (`tpd`): input + output tokens per UTC day, counted in
 * usage_daily when a reply ends. It is checked when a request is admitted, against the tokens of
 * replies already ended that day: a key at or over its budget is refused until midnight UTC, and
 * a reply admitted under it runs to its end and counts in full (docs/api.md#token-budget).
 */
import { sql } from "drizzle-orm";
import { apiKeys, usageDaily } from "../db/schema.ts";

const DAY_MS = 86_400_000;

/** Today's tokens of a key with a budget, folded into the statement that reads the key (no round trip). */
export const tokensTodaySql = (day: ReturnType<typeof sql.placeholder>) =>
  sql<number | null>`case when ${apiKeys.tpd} is null then null else coalesce((
    select sum(${usageDaily.inputTokens} + ${usageDaily.outputTokens}) from ${usageDaily}
    where ${usageDaily.keyId} = ${apiKeys.id} and ${usageDaily.day} = ${day}::date), 0) end`;

/** The budget's state for one request, or null for a key without one. */
export interface TokenBudget {
  limit: number;
  remaining: number;
  resetMs: number;
  exceeded: boolean;
}

export function tokenBudget(key: { tpd: number | null; tokensToday: number | null }, now: number): TokenBudget | null {
  if (key.tpd == null) return null;
  const used = key.tokensToday ?? 0;
  return {
    limit: key.tpd,
    remaining: Math.max(0, key.tpd - used),
    resetMs: DAY_MS - (now % DAY_MS),
    exceeded: used >= key.tpd,
  };
}

/** A duration as OpenAI writes it in `x-ratelimit-reset-tokens`: `6h0m0s`, `59s`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${s % 60}s`;
}

/** The `X-RateLimit-*-Tokens` headers (OpenAI's names), plus Retry-After when refused. */
export function tokenHeaders(b: TokenBudget): Record<string, string> {
  const headers: Record<string, string> = {
    "x-ratelimit-limit-tokens": String(b.limit),
    "x-ratelimit-remaining-tokens": String(b.remaining),
    "x-ratelimit-reset-tokens": duration(b.resetMs),
  };
  if (b.exceeded) headers["retry-after"] = String(Math.ceil(b.resetMs / 1000));
  return headers;
}

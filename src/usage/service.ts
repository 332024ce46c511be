/** Reads of usage_daily (its writes: counts.ts) and the limiter's day counts. Plain rows out. */
import { eq, inArray, sql } from "drizzle-orm";
import type { UsageDay, UsageTotals } from "../contract/operate.ts";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/rows.ts";
import { apiKeys, rateLimits, usageDaily } from "../db/schema.ts";

const DAY_MS = 86_400_000;
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every day from `from` to `to` (YYYY-MM-DD, inclusive). */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) out.push(utcDay(t));
  return out;
}

const zero = (): UsageTotals => ({ requests: 0, chat_turns: 0, input_tokens: 0, output_tokens: 0, refusals: 0 });

export interface KeyUsageRows {
  keyId: string;
  keyName: string;
  days: UsageDay[];
  totals: UsageTotals;
}

/**
 * Usage of `keyIds` (or of every key with usage in the range, for "all") from `from` to `to`:
 * one entry per key, every day of the range listed (zeros included), oldest first.
 */
export async function usageOf(db: Db, keyIds: string[] | "all", from: string, to: string): Promise<KeyUsageRows[]> {
  // A day's usage: its shards in usage_daily, plus, for the day a key's limiter row is on, that
  // row's admitted requests (its day_count; written to usage_daily when the row moves to a new day).
  const keys =
    keyIds === "all"
      ? sql`true`
      : sql`u.key_id in (${sql.join(
          keyIds.map((k) => sql`${k}`),
          sql`, `,
        )})`;
  const rows = await rowsOf<{
    keyId: string;
    keyName: string;
    day: string;
    requests: string;
    turns: string;
    inputTokens: string;
    outputTokens: string;
    refusals: string;
  }>(
    db,
    sql`select u.key_id as "keyId", k.name as "keyName", u.day::text as day, sum(u.requests) as requests,
      sum(u.turns) as turns, sum(u.input_tokens) as "inputTokens", sum(u.output_tokens) as "outputTokens",
      sum(u.refusals) as refusals
    from (
      select key_id, day, requests, turns, input_tokens, output_tokens, refusals from ${usageDaily}
      union all
      select key_id, day, day_count, 0, 0, 0, 0 from ${rateLimits}
    ) as u join ${apiKeys} k on k.id = u.key_id
    where u.day between ${from}::date and ${to}::date and ${keys}
    group by u.key_id, k.name, u.day
    order by u.key_id, u.day`,
  );
  const names = new Map<string, string>();
  if (keyIds !== "all") {
    const keys = await db
      .select({ id: apiKeys.id, name: apiKeys.name })
      .from(apiKeys)
      .where(inArray(apiKeys.id, keyIds));
    for (const k of keys) names.set(k.id, k.name);
  }
  for (const r of rows) names.set(r.keyId, r.keyName);
  const byKey = new Map<string, Map<string, UsageDay>>();
  for (const r of rows) {
    const days = byKey.get(r.keyId) ?? new Map<string, UsageDay>();
    days.set(r.day, {
      date: r.day,
      requests: Number(r.requests),
      chat_turns: Number(r.turns),
      input_tokens: Number(r.inputTokens),
      output_tokens: Number(r.outputTokens),
      refusals: Number(r.refusals),
    });
    byKey.set(r.keyId, days);
  }
  const range = daysBetween(from, to);
  return [...names.keys()].sort().map((keyId) => {
    const known = byKey.get(keyId);
    const days = range.map((date) => known?.get(date) ?? { date, ...zero() });
    const totals = zero();
    for (const d of days) for (const k of Object.keys(totals) as (keyof UsageTotals)[]) totals[k] += d[k];
    return { keyId, keyName: names.get(keyId) ?? "", days, totals };
  });
}

/** Whether a key with this id exists (revoked ones included: their usage stays readable). */
export async function keyExists(db: Db, id: string): Promise<boolean> {
  const rows = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, id));
  return rows.length === 1;
}

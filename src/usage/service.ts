/** Reads of usage_daily (written by triggers, see db/schema.ts `usageDaily`). Plain rows out. */
import { and, asc, eq, gte, inArray, lte, sum } from "drizzle-orm";
import type { UsageDay, UsageTotals } from "../contract/operate.ts";
import type { Db } from "../db/client.ts";
import { apiKeys, usageDaily } from "../db/schema.ts";

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
  const inRange = and(gte(usageDaily.day, from), lte(usageDaily.day, to));
  const rows = await db
    .select({
      keyId: usageDaily.keyId,
      keyName: apiKeys.name,
      day: usageDaily.day,
      // A day is the sum of its shards (db/schema.ts usageDaily.shard).
      requests: sum(usageDaily.requests),
      turns: sum(usageDaily.turns),
      inputTokens: sum(usageDaily.inputTokens),
      outputTokens: sum(usageDaily.outputTokens),
      refusals: sum(usageDaily.refusals),
    })
    .from(usageDaily)
    .innerJoin(apiKeys, eq(apiKeys.id, usageDaily.keyId))
    .where(keyIds === "all" ? inRange : and(inRange, inArray(usageDaily.keyId, keyIds)))
    .groupBy(usageDaily.keyId, apiKeys.name, usageDaily.day)
    .orderBy(asc(usageDaily.keyId), asc(usageDaily.day));
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

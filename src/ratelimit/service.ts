/**
 * The limiter: a sliding log for the minute and a calendar-day (UTC) counter, decided and
 * recorded by ONE statement so concurrent requests on any number of instances cannot both
 * take the last slot. The row lock of INSERT … ON CONFLICT DO UPDATE serialises them; the
 * WHERE makes the update (and so the admission) conditional. A refused request writes nothing.
 *
 * The log keeps (bucket, count) pairs. Up to EXACT_LOG_MAX requests per minute the bucket is
 * 1 ms: an exact sliding window. Above it the bucket is 1 s, so the row stays at most 61 pairs
 * however high the limit: a bucket counts while any part of it is inside the window, so the
 * limit still holds in every rolling 60 s; a request may be refused up to 1 s early.
 */
import { eq, sql } from "drizzle-orm";
import type { PlanLimits } from "../config/options.ts";
import type { Db } from "../db/client.ts";
import { rateLimits } from "../db/schema.ts";

export const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Per-minute limits up to this are counted exactly (1 ms buckets). */
export const EXACT_LOG_MAX = 1_000;

/** The state of one window after a decision. `resetMs`: until a slot frees (minute) or midnight UTC (day). */
export interface WindowState {
  limit: number;
  remaining: number;
  resetMs: number;
}

/** What the limiter decided for one request. */
export interface Decision {
  allowed: boolean;
  /** Which window refused the request, when one did. */
  refusedBy?: "minute" | "day";
  /** Milliseconds after which a retry is admitted, when refused. */
  retryAfterMs?: number;
  minute: WindowState;
  day: WindowState;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const untilMidnight = (ms: number) => DAY_MS - (ms % DAY_MS);
export const bucketMs = (rpm: number) => (rpm <= EXACT_LOG_MAX ? 1 : 1_000);

const p = (name: string) => sql.placeholder(name);

/**
 * The admission statement, prepared once per database: building this query is most of its cost
 * on the JS side, so the hot path only binds values. Placeholders: key, cur (the current
 * bucket), edge (a bucket counts while b + edge > 0, i.e. its last ms is inside the window),
 * rpm, rpd, day.
 */
function admissionStatement(db: Db) {
  const pairs = sql`unnest(${rateLimits.hits}, ${rateLimits.counts}) as u(b, c)`;
  const inWindow = sql`b + ${p("edge")}::bigint > 0`;
  const liveSum = sql`(select coalesce(sum(coalesce(c, 1)), 0) from ${pairs} where ${inWindow})`;
  const cur = sql`${p("cur")}::bigint`;
  const day = sql`${p("day")}::date`;
  return db
    .insert(rateLimits)
    .values({ keyId: sql`${p("key")}`, hits: sql`array[${cur}]`, counts: sql`array[1]`, day: sql`${day}`, dayCount: 1 })
    .onConflictDoUpdate({
      target: rateLimits.keyId,
      set: {
        // Live buckets except the current one, oldest first, then the current one with its count + 1.
        hits: sql`array(select b from ${pairs} where ${inWindow} and b <> ${cur} order by b) || ${cur}`,
        counts: sql`array(select coalesce(c, 1) from ${pairs} where ${inWindow} and b <> ${cur} order by b)
          || (1 + coalesce((select sum(coalesce(c, 1)) from ${pairs} where b = ${cur}), 0))::integer`,
        day: sql`${day}`,
        dayCount: sql`case when ${rateLimits.day} = ${day} then ${rateLimits.dayCount} + 1 else 1 end`,
      },
      setWhere: sql`${liveSum} < ${p("rpm")}::integer and (${rateLimits.day} <> ${day} or ${rateLimits.dayCount} < ${p("rpd")}::integer)`,
    })
    .returning({ hits: rateLimits.hits, counts: rateLimits.counts, dayCount: rateLimits.dayCount })
    .prepare("parley_ratelimit_admit");
}

const prepared = new WeakMap<Db, ReturnType<typeof admissionStatement>>();

/** Admits and records one request for `keyId` at time `now`, or refuses it without recording. */
export async function consume(db: Db, keyId: string, limits: PlanLimits, now: number): Promise<Decision> {
  const day = utcDay(now);
  const g = bucketMs(limits.rpm);
  let admit = prepared.get(db);
  if (!admit) prepared.set(db, (admit = admissionStatement(db)));
  // A bucket [b, b+g) counts while its last millisecond is inside (now - 60 s, now].
  const edge = g - 1 - (now - MINUTE_MS);
  const admitted = await admit.execute({ key: keyId, cur: now - (now % g), edge, rpm: limits.rpm, rpd: limits.rpd, day });

  if (admitted[0]) return decide(true, admitted[0], limits, now);

  // Refused: nothing was written. Read the row once to say which window and for how long.
  const [row] = await db.select().from(rateLimits).where(eq(rateLimits.keyId, keyId));
  const state = { hits: row?.hits ?? [], counts: row?.counts ?? [], dayCount: row?.day === day ? row.dayCount : 0 };
  return decide(false, state, limits, now);
}

function decide(
  allowed: boolean,
  state: { hits: number[]; counts: number[]; dayCount: number },
  limits: PlanLimits,
  now: number,
): Decision {
  const g = bucketMs(limits.rpm);
  const expiresIn = (b: number) => b + g - 1 + MINUTE_MS - now; // when the bucket stops counting
  const live = state.hits
    .map((b, i) => ({ b, c: state.counts[i] ?? 1 }))
    .filter(({ b }) => expiresIn(b) > 0)
    .sort((x, y) => x.b - y.b);
  const used = live.reduce((n, x) => n + x.c, 0);
  const minute: WindowState = {
    limit: limits.rpm,
    remaining: Math.max(0, limits.rpm - used),
    resetMs: live[0] ? expiresIn(live[0].b) : 0,
  };
  const day: WindowState = { limit: limits.rpd, remaining: Math.max(0, limits.rpd - state.dayCount), resetMs: untilMidnight(now) };
  if (allowed) return { allowed, minute, day };
  if (state.dayCount >= limits.rpd) return { allowed, refusedBy: "day", retryAfterMs: day.resetMs, minute, day };
  // Admitted again once enough of the oldest buckets have left to bring the count below the limit.
  let left = used;
  let retryAfterMs = 1;
  for (const { b, c } of live) {
    left -= c;
    retryAfterMs = Math.max(1, expiresIn(b));
    if (left < limits.rpm) break;
  }
  return { allowed, refusedBy: "minute", retryAfterMs, minute, day };
}

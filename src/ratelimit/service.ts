/**
 * The limiter: a sliding log for the minute and a calendar-day (UTC) counter, decided and
 * recorded by ONE statement so concurrent requests on any number of instances cannot both
 * take the last slot. The row lock of INSERT … ON CONFLICT DO UPDATE serialises them; the
 * WHERE makes the update (and so the admission) conditional. A refused request leaves the limiter
 * row as it was; the read that explains the refusal also counts it in usage_daily (one statement).
 * An admitted request is counted in usage_daily by a trigger on this row (migration usage_triggers).
 *
 * The log keeps (bucket, count) pairs; the bucket rule is docs/api.md#rate-limits. A bucket
 * is stored as its LAST millisecond, so how long it counts never depends on the key's current
 * limit: lowering a limit across EXACT_LOG_MAX cannot shorten the life of the buckets it wrote.
 *
 * The day only moves forward: a request stamped with an earlier day than the row's (an instance
 * whose clock lags the others' around midnight) counts against the row's day instead of
 * resetting it, so skewed instances cannot reset each other's count back and forth.
 */
import { eq, sql } from "drizzle-orm";
import type { PlanLimits } from "../config/options.ts";
import type { Db } from "../db/client.ts";
import { rateLimits, usageDaily } from "../db/schema.ts";
import { memo } from "../memo.ts";

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
/** Milliseconds from `now` to the end of the UTC day `day` (YYYY-MM-DD). */
const untilEndOf = (day: string, now: number) => Date.parse(`${day}T00:00:00Z`) + DAY_MS - now;
export const bucketMs = (rpm: number) => (rpm <= EXACT_LOG_MAX ? 1 : 1_000);

const p = (name: string) => sql.placeholder(name);

/**
 * The admission statement, prepared once per database: building this query is most of its cost
 * on the JS side, so the hot path only binds values. Placeholders: key, cur (the current
 * bucket's last ms), edge (a bucket counts while b + edge > 0, i.e. b is inside the window),
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
        day: sql`greatest(${rateLimits.day}, ${day})`,
        dayCount: sql`case when ${rateLimits.day} < ${day} then 1 else ${rateLimits.dayCount} + 1 end`,
      },
      setWhere: sql`${liveSum} < ${p("rpm")}::integer and (${rateLimits.day} < ${day} or ${rateLimits.dayCount} < ${p("rpd")}::integer)`,
    })
    .returning({ hits: rateLimits.hits, counts: rateLimits.counts, day: rateLimits.day, dayCount: rateLimits.dayCount })
    .prepare("parley_ratelimit_admit");
}

const prepared = new WeakMap<Db, ReturnType<typeof admissionStatement>>();

/** Admits and records one request for `keyId` at time `now`, or refuses it without recording. */
export async function consume(db: Db, keyId: string, limits: PlanLimits, now: number): Promise<Decision> {
  const day = utcDay(now);
  const g = bucketMs(limits.rpm);
  const admit = memo(prepared, db, () => admissionStatement(db));
  // The current bucket is [now - now % g, … + g - 1], stored as its last ms; a bucket counts
  // while that ms is inside (now - 60 s, now].
  const cur = now - (now % g) + g - 1;
  const admitted = await admit.execute({
    key: keyId,
    cur,
    edge: MINUTE_MS - now,
    rpm: limits.rpm,
    rpd: limits.rpd,
    day,
  });

  if (admitted[0]) return decide(true, admitted[0], limits, now);

  // Refused: the limiter row is untouched. Read it once to say which window and for how long,
  // counting the refusal in the same statement.
  const refusal = db.$with("refusal").as(refusalUpsert(db, keyId, day).returning({ keyId: usageDaily.keyId }));
  const [row] = await db.with(refusal).select().from(rateLimits).where(eq(rateLimits.keyId, keyId));
  const state = row ?? { hits: [], counts: [], day, dayCount: 0 };
  return decide(false, state, limits, now);
}

const refusalUpsert = (db: Db, keyId: string, day: string) =>
  db
    .insert(usageDaily)
    .values({ keyId, day, refusals: 1 })
    .onConflictDoUpdate({
      target: [usageDaily.keyId, usageDaily.day],
      set: { refusals: sql`${usageDaily.refusals} + 1` },
    });

/** Counts a refusal decided elsewhere (the token budget) in the key's usage for `now`'s UTC day. */
export async function countRefusal(db: Db, keyId: string, now: number): Promise<void> {
  await refusalUpsert(db, keyId, utcDay(now));
}

/** A key's row as the decision reads it. */
interface LimiterState {
  hits: number[];
  counts: number[];
  day: string;
  dayCount: number;
}

function decide(allowed: boolean, state: LimiterState, limits: PlanLimits, now: number): Decision {
  const expiresIn = (b: number) => b + MINUTE_MS - now; // when the bucket stops counting
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
  // The row's day is the counting day; an older one (or a lagging clock's) means a fresh count.
  const today = utcDay(now);
  const countingDay = state.day > today ? state.day : today;
  const dayCount = state.day === countingDay ? state.dayCount : 0;
  const day: WindowState = {
    limit: limits.rpd,
    remaining: Math.max(0, limits.rpd - dayCount),
    resetMs: untilEndOf(countingDay, now),
  };
  if (allowed) return { allowed, minute, day };
  // Admitted again once enough of the oldest buckets have left to bring the count below the limit.
  let minuteRetryMs = 0;
  if (used >= limits.rpm) {
    let left = used;
    for (const { b, c } of live) {
      left -= c;
      minuteRetryMs = expiresIn(b);
      if (left < limits.rpm) break;
    }
  }
  // A day refusal must also wait out the minute if it is still full after midnight: a retry
  // after Retry-After is admitted.
  if (dayCount >= limits.rpd) {
    return { allowed, refusedBy: "day", retryAfterMs: Math.max(day.resetMs, minuteRetryMs), minute, day };
  }
  return { allowed, refusedBy: "minute", retryAfterMs: Math.max(1, minuteRetryMs), minute, day };
}

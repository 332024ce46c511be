/**
 * The limiter: a sliding log for the minute and a calendar-day (UTC) counter, decided and
 * recorded by ONE statement so concurrent requests on any number of instances cannot both
 * take the last slot. The row lock of INSERT … ON CONFLICT DO UPDATE serialises them; the
 * WHERE makes the update (and so the admission) conditional. A refused request writes nothing.
 *
 * The log keeps (bucket, count) pairs; the bucket rule is docs/api.md#rate-limits. A bucket
 * is stored as its LAST millisecond, so how long it counts never depends on the key's current
 * limit: lowering a limit across EXACT_LOG_MAX cannot shorten the life of the buckets it wrote.
 *
 * The day only moves forward: a request stamped with an earlier day than the row's (an instance
 * whose clock lags the others' around midnight) counts against the row's day instead of
 * resetting it, so skewed instances cannot reset each other's count back and forth.
 */
import { type SQL, sql } from "drizzle-orm";
import type { PlanLimits } from "../config/options.ts";
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

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Milliseconds from `now` to the end of the UTC day `day` (YYYY-MM-DD). */
const untilEndOf = (day: string, now: number) => Date.parse(`${day}T00:00:00Z`) + DAY_MS - now;
export const bucketMs = (rpm: number) => (rpm <= EXACT_LOG_MAX ? 1 : 1_000);

/** The SQL values one admission is decided with (the current bucket, the window's edge, the limits, the day). */
export interface AdmissionInputs {
  /** The current bucket's last ms (bigint). */
  cur: SQL;
  /** A bucket counts while b + edge > 0, i.e. b is inside the window (bigint: MINUTE_MS - now). */
  edge: SQL;
  rpm: SQL;
  rpd: SQL;
  day: SQL;
}

/**
 * The ON CONFLICT DO UPDATE of an admission: its SET and the WHERE that makes it conditional.
 * The gate runs it in one statement with the key lookup (auth/admit.ts).
 */
export function admissionUpdate({ cur, edge, rpm, rpd, day }: AdmissionInputs) {
  const pairs = sql`unnest(${rateLimits.hits}, ${rateLimits.counts}) as u(b, c)`;
  const inWindow = sql`b + ${edge} > 0`;
  const liveSum = sql`(select coalesce(sum(coalesce(c, 1)), 0) from ${pairs} where ${inWindow})`;
  return {
    target: rateLimits.keyId,
    set: {
      // Live buckets except the current one, oldest first, then the current one with its count + 1.
      hits: sql`array(select b from ${pairs} where ${inWindow} and b <> ${cur} order by b) || ${cur}`,
      counts: sql`array(select coalesce(c, 1) from ${pairs} where ${inWindow} and b <> ${cur} order by b)
          || (1 + coalesce((select sum(coalesce(c, 1)) from ${pairs} where b = ${cur}), 0))::integer`,
      day: sql`greatest(${rateLimits.day}, ${day})`,
      dayCount: sql`case when ${rateLimits.day} < ${day} then 1 else ${rateLimits.dayCount} + 1 end`,
    },
    setWhere: sql`${liveSum} < ${rpm} and (${rateLimits.day} < ${day} or ${rateLimits.dayCount} < ${rpd})`,
  };
}

/** What an admission returns: the key's row after it. */
export const admissionReturning = {
  hits: rateLimits.hits,
  counts: rateLimits.counts,
  day: rateLimits.day,
  dayCount: rateLimits.dayCount,
};

/** The state of a key that has no row yet. */
export const emptyState = (now: number): LimiterState => ({ hits: [], counts: [], day: utcDay(now), dayCount: 0 });

/** A key's row as the decision reads it. */
export interface LimiterState {
  hits: number[];
  counts: number[];
  day: string;
  dayCount: number;
}

export function decide(allowed: boolean, state: LimiterState, limits: PlanLimits, now: number): Decision {
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

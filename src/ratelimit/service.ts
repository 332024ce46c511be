/**
 * The limiter: a sliding log for the minute and a calendar-day (UTC) counter, decided and
 * recorded by ONE statement so concurrent requests on any number of instances cannot both
 * take the last slot. The row lock of INSERT … ON CONFLICT DO UPDATE serialises them; the
 * WHERE makes the update (and so the admission) conditional. A refused request writes nothing.
 *
 * The log is two arrays; the bucket rule is docs/api.md#rate-limits. `ends`: each bucket's LAST
 * millisecond, ascending — so how long a bucket counts never depends on the key's current limit
 * (lowering a limit across EXACT_LOG_MAX cannot shorten the life of the buckets it wrote).
 * `cum`: running counts, one longer — cum[1] is the count before ends[1], cum[i + 1] the count
 * through ends[i]. The minute's count is then cum[last] − cum[n + 1], where n buckets have left
 * the window (`width_bucket`, a binary search), and admitting is a few slices and appends: no
 * unnest, sum or sort, which made the admission cost twice a plain upsert.
 * A request stamped before the newest bucket (an instance whose clock lags) counts in the
 * newest one, so it counts a little longer than its own clock says, never shorter.
 *
 * The day only moves forward: a request stamped with an earlier day than the row's (an instance
 * whose clock lags the others' around midnight) counts against the row's day instead of
 * resetting it, so skewed instances cannot reset each other's count back and forth.
 */
import { type SQL, sql } from "drizzle-orm";
import type { IndexColumn } from "drizzle-orm/pg-core";
import type { PlanLimits } from "../config/options.ts";
import { rateLimits, type visitorRateLimits } from "../db/schema.ts";

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

/** The SQL values one admission is decided with (the current bucket, the window's edge, the limits, the day). */
export interface AdmissionInputs {
  /** The current bucket's last ms (bigint). */
  cur: SQL;
  /** Buckets ending at or before this ms have left the window (bigint: now − MINUTE_MS). */
  cut: SQL;
  rpm: SQL;
  rpd: SQL;
  day: SQL;
}

/** The counter columns of a table that keeps the log (`rate_limits`, `visitor_rate_limits`), and its conflict target. */
export interface CounterColumns {
  ends: typeof rateLimits.ends | typeof visitorRateLimits.ends;
  cum: typeof rateLimits.cum | typeof visitorRateLimits.cum;
  day: typeof rateLimits.day | typeof visitorRateLimits.day;
  dayCount: typeof rateLimits.dayCount | typeof visitorRateLimits.dayCount;
  target: IndexColumn | IndexColumn[];
}

const KEY_COUNTERS: CounterColumns = {
  ends: rateLimits.ends,
  cum: rateLimits.cum,
  day: rateLimits.day,
  dayCount: rateLimits.dayCount,
  target: rateLimits.keyId,
};

/** A new row's log: the current bucket, holding one request. */
export const firstLog = (cur: SQL) => sql`array[${cur}]::bigint[], '{0,1}'::bigint[]`;

/**
 * The ON CONFLICT DO UPDATE of an admission: its SET and the WHERE that makes it conditional.
 * The gate runs it in one statement with the key lookup (ratelimit/admit.ts).
 */
export function admissionUpdate({ cur, cut, rpm, rpd, day }: AdmissionInputs, table: CounterColumns = KEY_COUNTERS) {
  const { ends, cum } = table;
  const gone = sql`width_bucket(${cut}, ${ends})`; // buckets that have left the window
  const top = sql`cardinality(${cum})`;
  // The newest bucket takes this request when it is the current one (or later: a lagging clock).
  const joins = sql`coalesce(${ends}[cardinality(${ends})] >= ${cur}, false)`;
  return {
    target: table.target,
    set: {
      ends: sql`case when ${joins} then ${ends}[${gone} + 1:] else ${ends}[${gone} + 1:] || ${cur} end`,
      cum: sql`case when ${joins} then ${cum}[${gone} + 1:${top} - 1] else ${cum}[${gone} + 1:] end || (${cum}[${top}] + 1)`,
      day: sql`greatest(${table.day}, ${day})`,
      dayCount: sql`case when ${table.day} < ${day} then 1 else ${table.dayCount} + 1 end`,
    },
    setWhere: sql`${cum}[${top}] - ${cum}[${gone} + 1] < ${rpm} and (${table.day} < ${day} or ${table.dayCount} < ${rpd})`,
  };
}

/** What an admission returns: the key's row after it. */
export const admissionReturning = {
  ends: rateLimits.ends,
  cum: rateLimits.cum,
  day: rateLimits.day,
  dayCount: rateLimits.dayCount,
};

/** A key's row as stored: the log (ends, running counts) and the day's count. */
export interface StoredLimiterState {
  ends: number[];
  cum: number[];
  day: string;
  dayCount: number;
}

/** The stored row as (bucket, count) pairs, which the decision reads. */
export const limiterState = ({ ends, cum, day, dayCount }: StoredLimiterState): LimiterState => ({
  hits: ends,
  counts: ends.map((_, i) => Number(cum[i + 1]) - Number(cum[i])),
  day,
  dayCount,
});

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

const secs = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/**
 * Rate-limit headers: the IETF httpapi draft's `RateLimit-Policy` / `RateLimit` (both windows)
 * and the common `X-RateLimit-*` trio (for the window with the least room left).
 * See README "Rate limits" for the exact semantics.
 */
export function rateLimitHeaders(d: Decision, now: number): Record<string, string> {
  // The window a client should watch: the one that refused, else the one with the least room
  // left; on a tie the one that frees later (when both are spent, waiting out the minute is not enough).
  const tight = d.refusedBy
    ? d[d.refusedBy]
    : d.minute.remaining < d.day.remaining ||
        (d.minute.remaining === d.day.remaining && d.minute.resetMs >= d.day.resetMs)
      ? d.minute
      : d.day;
  const headers: Record<string, string> = {
    "ratelimit-policy": `"minute";q=${d.minute.limit};w=60, "day";q=${d.day.limit};w=86400`,
    ratelimit: `"minute";r=${d.minute.remaining};t=${secs(d.minute.resetMs)}, "day";r=${d.day.remaining};t=${secs(d.day.resetMs)}`,
    "x-ratelimit-limit": String(tight.limit),
    "x-ratelimit-remaining": String(tight.remaining),
    "x-ratelimit-reset": String(Math.ceil((now + tight.resetMs) / 1000)),
  };
  if (!d.allowed && d.retryAfterMs !== undefined) headers["retry-after"] = String(secs(d.retryAfterMs));
  return headers;
}

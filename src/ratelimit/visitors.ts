/**
 * The limits of a public key's visitors: each visitor's and each client IP's own windows, the
 * same sliding minute log and UTC-day count as a key's (service.ts), one row per (key, subject)
 * in `visitor_rate_limits`, decided and recorded by ONE conditional upsert per subject. The key's
 * own plan still counts every visitor's request in the gate's statement (admit.ts).
 *
 * A request is checked against the visitor first, then the IP: a visitor refusal records
 * nothing; an IP refusal has already counted in the visitor's window (one slot), which keeps the
 * statements independent and the failure mode on the side of refusing.
 */
import { and, eq, lt, sql } from "drizzle-orm";
import type { PlanLimits } from "../config/options.ts";
import type { Db } from "../db/client.ts";
import { visitorRateLimits } from "../db/schema.ts";
import {
  admissionUpdate,
  type Decision,
  decide,
  EXACT_LOG_MAX,
  emptyState,
  firstLog,
  limiterState,
  MINUTE_MS,
  utcDay,
} from "./service.ts";

/** One window pair to admit a request under: `v:<visitor>` or `ip:<address>`. */
export interface Subject {
  subject: string;
  limits: PlanLimits;
}

/** The row after an admission (`admissionReturning`'s columns, of this table). */
const RETURNING = {
  ends: visitorRateLimits.ends,
  cum: visitorRateLimits.cum,
  day: visitorRateLimits.day,
  dayCount: visitorRateLimits.dayCount,
};

const COUNTERS = {
  ends: visitorRateLimits.ends,
  cum: visitorRateLimits.cum,
  day: visitorRateLimits.day,
  dayCount: visitorRateLimits.dayCount,
  target: [visitorRateLimits.keyId, visitorRateLimits.subject],
};

/** Admits one request of `subject` under key `keyId`: the decision, with the state after it. */
async function admitOne(db: Db, keyId: string, { subject, limits }: Subject, now: number): Promise<Decision> {
  const grain = limits.rpm <= EXACT_LOG_MAX ? 1 : 1000;
  const cur = now - (now % grain) + grain - 1;
  const day = utcDay(now);
  const [row] = await db
    .insert(visitorRateLimits)
    .select(sql`select ${keyId}, ${subject}, ${firstLog(sql`${cur}::bigint`)}, ${day}::date, 1` as never)
    .onConflictDoUpdate(
      admissionUpdate(
        {
          cur: sql`${cur}::bigint`,
          cut: sql`${now - MINUTE_MS}::bigint`,
          rpm: sql`${limits.rpm}::integer`,
          rpd: sql`${limits.rpd}::integer`,
          day: sql`${day}::date`,
        },
        COUNTERS,
      ),
    )
    .returning(RETURNING);
  if (row) return decide(true, limiterState(row), limits, now);
  const [state] = await db
    .select(RETURNING)
    .from(visitorRateLimits)
    .where(and(eq(visitorRateLimits.keyId, keyId), eq(visitorRateLimits.subject, subject)));
  return decide(false, state ? limiterState(state) : emptyState(now), limits, now);
}

/** The first refusal among `subjects` (checked in order), else the first one's decision (the caller's own windows). */
export async function admitSubjects(db: Db, keyId: string, subjects: Subject[], now: number): Promise<Decision> {
  let first: Decision | undefined;
  for (const subject of subjects) {
    const decision = await admitOne(db, keyId, subject, now);
    if (!decision.allowed) return decision;
    first ??= decision;
  }
  return first!;
}

/** Forgets counters whose day ended before yesterday (UTC): their windows are long gone. */
export async function forgetIdleSubjects(db: Db, now: number): Promise<void> {
  await db.delete(visitorRateLimits).where(lt(visitorRateLimits.day, utcDay(now - 86_400_000)));
}

/**
 * The gate's hot path in ONE statement: the live key behind the secret's hash, and the limiter's
 * admission for it (service.ts), so an authenticated request costs one round trip before its
 * own work. ratelimit/ writes `rate_limits`; auth/ calls this with the secret's hash, and
 * usage/ gives its part (`RefusalCount`) for the refusals it counts. The key's limits (its own, else its plan's) are resolved inside the
 * statement from the plan defaults bound as values. A request it does not admit (no such key,
 * or refused) reads the key and its counters once more to tell 401 from 429 and say for how long.
 */
import { and, eq, isNull, type SQL, type SQLWrapper, sql, type WithSubquery } from "drizzle-orm";
import type { ParleyOptions, PlanLimits } from "../config/options.ts";
import type { KeyRole } from "../contract/keys.ts";
import type { Plan } from "../contract/plans.ts";
import type { Db } from "../db/client.ts";
import { getOrCreate } from "../db/rows.ts";
import { apiKeys, rateLimits, type StoredWidgetSettings } from "../db/schema.ts";
import {
  admissionReturning,
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
import { tokensTodaySql } from "./token-budget.ts";

/** What an authenticated request knows about its caller. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  plan: Plan;
  rpm: number | null;
  rpd: number | null;
  role: KeyRole;
  /** The knowledge bases a chat key may use; an admin key may use every one. */
  knowledgeBaseIds: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  /** Daily token budget (input + output, UTC day), or null. */
  tpd: number | null;
  /** Tokens used on the request's UTC day, read only for a key with a budget (else null). */
  tokensToday: number | null;
  /** A public key's widget settings; null for the other roles. */
  widget: StoredWidgetSettings | null;
  /** The visitor a public key's visitor token names (auth/ sets it after verifying the token). */
  visitor?: Visitor;
}

/** A public key's visitor: who, and from which page origin (the token binds both). */
export interface Visitor {
  id: string;
  origin: string;
}

/** usage/'s part: counting a refused request in `usage_daily`, which usage/ owns (usage/counts.ts). */
export interface RefusalCount {
  /** The count as a data-modifying CTE for the live key `keyFilter` selects, on `day`. */
  inStatement(db: Db, keyFilter: SQL, day: SQL): WithSubquery;
  /** The count on its own, for a refusal decided without the gate's statement. */
  one(db: Db, keyId: string, day: string): Promise<void>;
}

const p = (name: string) => sql.placeholder(name);

/** A key's limit: its own, else its plan's default; enterprise keys (and old rows) fall back to Pro's. */
const limitOf = (own: SQLWrapper, free: string, pro: string) =>
  sql<number>`coalesce(${own}, case ${apiKeys.plan} when 'free' then ${p(free)}::integer when 'pro' then ${p(pro)}::integer end, ${p(pro)}::integer)`;

const keyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  plan: apiKeys.plan,
  rpm: apiKeys.rpm,
  rpd: apiKeys.rpd,
  limitRpm: limitOf(apiKeys.rpm, "freeRpm", "proRpm").as("limit_rpm"),
  limitRpd: limitOf(apiKeys.rpd, "freeRpd", "proRpd").as("limit_rpd"),
  role: apiKeys.role,
  // The key's grants come with it: still one round trip.
  knowledgeBaseIds: sql<
    string[]
  >`array(select g.kb_id from key_knowledge_bases g where g.key_id = ${apiKeys.id} order by 1)`.as("kb_ids"),
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  tpd: apiKeys.tpd,
  tokensToday: tokensTodaySql(p("day")).as("tokens_today"),
  widget: apiKeys.widget,
};
const liveKey = and(eq(apiKeys.hash, p("hash")), isNull(apiKeys.revokedAt));
/** An expired key is never admitted (nor counted); the state read then tells 401 key_expired. */
const unexpired = sql`(${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > to_timestamp(${p("now")}::bigint / 1000.0))`;
/**
 * A key at or over its daily token budget is not admitted either (so it spends none of its
 * request limits); the state read then tells 429 token_quota_exceeded (service.ts).
 */
const underBudget = sql`(${apiKeys.tpd} is null or ${tokensTodaySql(p("day"))} < ${apiKeys.tpd})`;

/**
 * A refusal's count commits without waiting for the WAL flush: it is the only durable write of
 * the statement (rate_limits, which counts admitted requests, is UNLOGGED), so a database crash
 * may lose the refusals of its last fraction of a second, and nothing else. A flush per request
 * once cost two thirds of GET /v1/conversations' throughput (bench/operations.ts).
 * set_config(…, true) lasts for this statement's own transaction.
 */
const asyncCommit = sql`(select set_config('synchronous_commit', 'off', true)) = 'off'`;

/** Placeholders: hash, now, cut (now - MINUTE_MS), day, freeRpm, freeRpd, proRpm, proRpd. */
function gateStatement(db: Db) {
  const gateKey = db.$with("gate_key").as(
    db
      .select(keyColumns)
      .from(apiKeys)
      .where(and(liveKey, unexpired, underBudget)),
  );
  const now = sql`${p("now")}::bigint`;
  const day = sql`${p("day")}::date`;
  const from = (column: string) => sql.raw(`(select ${column} from gate_key)`);
  return db
    .with(gateKey)
    .insert(rateLimits)
    .select(
      // The current bucket (1 ms up to EXACT_LOG_MAX per minute, else 1 s), stored as its last ms.
      // Columns in the table's order; the previous release's log columns (hits, counts) stay empty.
      sql`select id, '{}'::bigint[], '{}'::integer[], ${firstLog(sql`${now} - ${now} % g + g - 1`)}, ${day}, 1
        from gate_key, lateral (select (case when limit_rpm <= ${sql.raw(String(EXACT_LOG_MAX))} then 1 else 1000 end)::bigint as g) bucket`,
    )
    .onConflictDoUpdate(
      admissionUpdate({
        cur: sql`excluded.ends[1]`,
        cut: sql`${p("cut")}::bigint`,
        rpm: from("limit_rpm"),
        rpd: from("limit_rpd"),
        day,
      }),
    )
    .returning({
      ...admissionReturning,
      id: rateLimits.keyId,
      name: sql<string>`${from("name")}`,
      plan: sql<ApiKeyInfo["plan"]>`${from("plan")}`,
      rpm: sql<number | null>`${from("rpm")}`,
      rpd: sql<number | null>`${from("rpd")}`,
      limitRpm: sql<number>`${from("limit_rpm")}`,
      limitRpd: sql<number>`${from("limit_rpd")}`,
      role: sql<ApiKeyInfo["role"]>`${from("role")}`,
      knowledgeBaseIds: sql<string[]>`${from("kb_ids")}`,
      expiresAt: sql<Date | null>`${from("expires_at")}`.mapWith(apiKeys.expiresAt),
      lastUsedAt: sql<Date | null>`${from("last_used_at")}`.mapWith(apiKeys.lastUsedAt),
      tpd: sql<number | null>`${from("tpd")}`,
      tokensToday: sql<number | null>`${from("tokens_today")}`,
      widget: sql<StoredWidgetSettings | null>`${from("widget")}`,
    })
    .prepare("parley_gate_admit_v6");
}

/**
 * The key and its counters as they are, for a request the gate did not admit. A live, unexpired
 * key that was not admitted was refused (limiter or token budget): the same statement counts the
 * refusal in its usage (a data-modifying CTE), so refusals cost no extra round trip either.
 */
const stateStatement = (db: Db, refusals: RefusalCount) => {
  const refusal = refusals.inStatement(db, and(liveKey, unexpired, asyncCommit)!, sql`${p("day")}::date`);
  return db
    .with(refusal)
    .select({ ...keyColumns, ...admissionReturning })
    .from(apiKeys)
    .leftJoin(rateLimits, eq(rateLimits.keyId, apiKeys.id))
    .where(liveKey)
    .prepare("parley_gate_state_v6");
};

const gates = new WeakMap<Db, { admit: ReturnType<typeof gateStatement>; state: ReturnType<typeof stateStatement> }>();

/** The live key whose secret hashes to `hash` and the limiter's decision for this request; null when no live key has it. */
export async function admitKey(
  db: Db,
  hash: string,
  plans: ParleyOptions["plans"],
  now: number,
  refusals: RefusalCount,
): Promise<{ apiKey: ApiKeyInfo; decision: Decision } | null> {
  const { admit, state } = getOrCreate(gates, db, () => ({
    admit: gateStatement(db),
    state: stateStatement(db, refusals),
  }));
  const values = {
    hash,
    day: utcDay(now),
    freeRpm: plans.free.rpm,
    freeRpd: plans.free.rpd,
    proRpm: plans.pro.rpm,
    proRpd: plans.pro.rpd,
  };
  const [admitted] = await admit.execute({ ...values, now, cut: now - MINUTE_MS });
  if (admitted) {
    return { apiKey: apiKeyOf(admitted), decision: decide(true, limiterState(admitted), limitsOf(admitted), now) };
  }
  const [row] = await state.execute({ ...values, now });
  if (!row) return null;
  const counters = row.ends
    ? limiterState({ ends: row.ends, cum: row.cum!, day: row.day!, dayCount: row.dayCount! })
    : null;
  return { apiKey: apiKeyOf(row), decision: decide(false, counters ?? emptyState(now), limitsOf(row), now) };
}

/**
 * The key as a statement returned it, in the form requests use: the drivers give an empty grant
 * list as null, timestamps as text from a CTE, and a bigint sum as text. Used by both lookups,
 * this statement's and auth/keys.ts's with the limiter off.
 */
export const apiKeyOf = ({
  id,
  name,
  plan,
  rpm,
  rpd,
  role,
  knowledgeBaseIds,
  expiresAt,
  lastUsedAt,
  tpd,
  tokensToday,
  widget,
}: ApiKeyInfo): ApiKeyInfo => ({
  id,
  name,
  plan,
  rpm,
  rpd,
  role,
  knowledgeBaseIds: knowledgeBaseIds ?? [],
  expiresAt: expiresAt == null ? null : new Date(expiresAt),
  lastUsedAt: lastUsedAt == null ? null : new Date(lastUsedAt),
  tpd: tpd ?? null,
  tokensToday: tokensToday == null ? null : Number(tokensToday),
  // From a CTE a jsonb column may come back as its text.
  widget: typeof widget === "string" ? (JSON.parse(widget) as StoredWidgetSettings) : (widget ?? null),
});
const limitsOf = (row: { limitRpm: number; limitRpd: number }): PlanLimits => ({
  rpm: row.limitRpm,
  rpd: row.limitRpd,
});

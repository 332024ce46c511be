/** The hot path: the live key behind a request's secret. Plain arguments in, plain rows out. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Plan } from "../contract/plans.ts";
import type { Db } from "../db/client.ts";
import { apiKeys, usageDaily } from "../db/schema.ts";
import { memo } from "../memo.ts";
import { hashSecret } from "./keys.ts";

/** What an authenticated request knows about its caller. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  plan: Plan;
  rpm: number | null;
  rpd: number | null;
  /** Daily token budget, or null. */
  tpd: number | null;
  /** Tokens used on the request's UTC day, read only for a key with a budget (else null). */
  tokensToday: number | null;
}

/** Every request runs this lookup: prepared once per database, so only the hash is bound. */
const lookups = new WeakMap<Db, ReturnType<typeof lookupStatement>>();
const lookupStatement = (db: Db) =>
  db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      plan: apiKeys.plan,
      rpm: apiKeys.rpm,
      rpd: apiKeys.rpd,
      tpd: apiKeys.tpd,
      // Folded into the lookup (no extra round trip), and only for keys with a budget.
      tokensToday: sql<number | null>`case when ${apiKeys.tpd} is null then null else coalesce((
        select ${usageDaily.inputTokens} + ${usageDaily.outputTokens} from ${usageDaily}
        where ${usageDaily.keyId} = ${apiKeys.id} and ${usageDaily.day} = ${sql.placeholder("day")}::date), 0) end`.mapWith(
        (v) => (v === null ? null : Number(v)),
      ),
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .prepare("parley_key_lookup");

/** The live key whose secret hashes to the stored hash, or null. No cache: revocation is immediate. `day`: the request's UTC day (YYYY-MM-DD). */
export async function findKeyBySecret(
  db: Db,
  secret: string,
  day = new Date().toISOString().slice(0, 10),
): Promise<ApiKeyInfo | null> {
  const lookup = memo(lookups, db, () => lookupStatement(db));
  const [row] = await lookup.execute({ hash: await hashSecret(secret), day });
  return row ?? null;
}

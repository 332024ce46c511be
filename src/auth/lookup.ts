/** The key lookup with the limiter off: the live key behind a request's secret. Plain arguments in, plain rows out. */
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { apiKeys } from "../db/schema.ts";
import { getOrCreate } from "../get-or-create.ts";
import { type ApiKeyInfo, apiKeyOf, tokensTodaySql } from "../ratelimit/index.ts";
import { hashSecret } from "./keys.ts";

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
      role: apiKeys.role,
      // One round trip: the key's grants come with it.
      knowledgeBaseIds: sql<
        string[]
      >`array(select g.kb_id from key_knowledge_bases g where g.key_id = "api_keys"."id" order by 1)`,
      expiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
      tpd: apiKeys.tpd,
      tokensToday: tokensTodaySql(sql.placeholder("day")),
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .prepare("parley_key_lookup_v3");

/** The live (unrevoked) key whose secret hashes to the stored hash, or null. No cache: revocation is immediate. */
export async function findKeyBySecret(
  db: Db,
  secret: string,
  day = new Date().toISOString().slice(0, 10),
): Promise<ApiKeyInfo | null> {
  const lookup = getOrCreate(lookups, db, () => lookupStatement(db));
  const [row] = await lookup.execute({ hash: await hashSecret(secret), day });
  return row ? apiKeyOf(row) : null;
}

/** `last_used_at` is written at most once per this interval per key. */
export const LAST_USED_PRECISION_MS = 60_000;

/**
 * Records that the key was used, unless it was within the last minute: one conditional UPDATE,
 * so concurrent requests (on any instance) write it once and the hot path stays a read.
 */
export async function touchKey(db: Db, key: ApiKeyInfo, at: Date): Promise<void> {
  if (key.lastUsedAt && at.getTime() - key.lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
  const stale = new Date(at.getTime() - LAST_USED_PRECISION_MS);
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.id, key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
}

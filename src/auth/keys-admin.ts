/** Key management (create, list, update, revoke). Plain arguments in, plain rows out: no HTTP here. */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { apiKeys } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { DISPLAY_PREFIX_LENGTH, generateSecret, hashSecret } from "./keys.ts";
import { checkLimits, type KeyLimits } from "./limits.ts";
import type { ApiKeyInfo } from "./lookup.ts";

/** A key as `keys list` shows it: never the secret. */
export interface ApiKeyListing extends Omit<ApiKeyInfo, "tokensToday"> {
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Creates a key and returns its secret; the secret is not stored and cannot be shown again. */
export async function createKey(
  db: Db,
  input: KeyLimits & { name: string },
  now = new Date(),
): Promise<{ id: string; secret: string; prefix: string }> {
  checkLimits(input);
  const secret = generateSecret();
  const row = {
    id: newId("key"),
    name: input.name,
    hash: await hashSecret(secret),
    prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
    plan: input.plan,
    rpm: input.rpm ?? null,
    rpd: input.rpd ?? null,
    tpd: input.tpd ?? null,
    createdAt: now,
  };
  await db.insert(apiKeys).values(row);
  return { id: row.id, secret, prefix: row.prefix };
}

export async function listKeys(db: Db): Promise<ApiKeyListing[]> {
  return db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      plan: apiKeys.plan,
      rpm: apiKeys.rpm,
      rpd: apiKeys.rpd,
      tpd: apiKeys.tpd,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Revokes a key; false when no live key has that id. Takes effect on the next request. */
export async function revokeKey(db: Db, id: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length === 1;
}

/**
 * Changes a key's plan or limits; false when no live key has that id. A new plan starts from
 * its own defaults: limits the key carried under its old plan are dropped unless given again.
 */
export async function updateKey(db: Db, id: string, limits: Partial<KeyLimits>): Promise<boolean> {
  const [current] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
  if (!current) return false;
  const keep = limits.plan === undefined || limits.plan === current.plan;
  const next = {
    plan: limits.plan ?? current.plan,
    rpm: limits.rpm !== undefined ? limits.rpm : keep ? current.rpm : null,
    rpd: limits.rpd !== undefined ? limits.rpd : keep ? current.rpd : null,
    // The token budget is the key's own, whatever its plan: kept unless given.
    tpd: limits.tpd !== undefined ? limits.tpd : current.tpd,
  };
  checkLimits(next);
  const rows = await db.update(apiKeys).set(next).where(eq(apiKeys.id, id)).returning({ id: apiKeys.id });
  return rows.length === 1;
}

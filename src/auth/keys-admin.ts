/**
 * Key management (create, list, read, update, revoke), the one implementation behind the CLI's
 * `keys …` and the HTTP routes /v1/keys. Client-facing failures are ApiErrors with a `param`,
 * which the CLI prints as they are. Reads are keys-listing.ts.
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { KeyRole } from "../contract/keys.ts";
import type { Db } from "../db/client.ts";
import { sqlState } from "../db/errors.ts";
import { apiKeys, keyKnowledgeBases, knowledgeBases, type StoredWidgetSettings } from "../db/schema.ts";
import { type Cursor, encodeCursor } from "../http/cursor.ts";
import { ApiError } from "../http/errors.ts";
import { newId } from "../primitives.ts";
import { lastAdminGuard } from "./admins.ts";
import { checkExpiry, checkName, invalid, limitsOk } from "./key-input.ts";
import { DISPLAY_PREFIX_LENGTH, generateSecret, hashSecret } from "./keys.ts";
import { type ApiKeyListing, getKey } from "./keys-listing.ts";

export { type ApiKeyListing, getKey, listKeys, pageKeys } from "./keys-listing.ts";

import type { KeyLimits } from "./limits.ts";
import { type WidgetFields, widgetColumns } from "./public-key-input.ts";

export interface KeyInput extends KeyLimits {
  name: string;
  role?: KeyRole;
  /** The knowledge bases a chat key may use; omitted: the one named `default`, if there is one. */
  knowledgeBaseIds?: string[];
  expiresAt?: Date | null;
  /** A public key's settings (snake case, as the wire gives them). */
  widget?: WidgetFields;
}

/** Grants, in one statement; an id that is no knowledge base is a 400 naming the field. */
async function grant(db: Db, keyId: string, kbIds: string[]): Promise<void> {
  if (kbIds.length === 0) return;
  try {
    await db
      .insert(keyKnowledgeBases)
      .values([...new Set(kbIds)].map((kbId) => ({ keyId, kbId })))
      .onConflictDoNothing();
  } catch (error) {
    if (sqlState(error) === "23503")
      throw invalid("knowledge_base_ids", "knowledge_base_ids names a knowledge base that does not exist.");
    throw error;
  }
}

/**
 * Creates a key and returns its secret; the secret is not stored and cannot be shown again.
 * Key and grants go in one statement (a data-modifying CTE), so a bad knowledge base id leaves no key.
 */
export async function createKey(
  db: Db,
  input: KeyInput,
  now = new Date(),
): Promise<{ id: string; secret: string; prefix: string }> {
  limitsOk(input);
  const name = checkName(input.name);
  checkExpiry(input.expiresAt, now);
  const role = input.role ?? "chat";
  const { widget = null, userTokenSecret = null } = widgetColumns({ next: role }, input.widget ?? {});
  const secret = generateSecret(role);
  const id = newId("key");
  // A public key's secret is public: shown whole, so its snippet can be copied again.
  const prefix = role === "public" ? secret : secret.slice(0, DISPLAY_PREFIX_LENGTH);
  const kbIds = input.knowledgeBaseIds ? [...new Set(input.knowledgeBaseIds)] : null;
  try {
    await db.execute(sql`
      with k as (
        insert into ${apiKeys} (id, name, hash, prefix, plan, rpm, rpd, tpd, role, created_at, expires_at, widget, user_token_secret)
        values (${id}, ${name}, ${await hashSecret(secret)}, ${prefix}, ${input.plan}, ${input.rpm ?? null},
          ${input.rpd ?? null}, ${input.tpd ?? null}, ${role}, ${now.toISOString()}::timestamptz,
          ${input.expiresAt ? input.expiresAt.toISOString() : null}::timestamptz,
          ${widget ? JSON.stringify(widget) : null}::jsonb, ${userTokenSecret})
        returning id
      )
      insert into ${keyKnowledgeBases} (key_id, kb_id)
      select k.id, g.kb_id from k cross join (${
        kbIds
          ? sql`select unnest(array[${sql.join(
              kbIds.map((v) => sql`${v}`),
              sql`, `,
            )}]::text[]) as kb_id`
          : sql`select ${knowledgeBases.id} as kb_id from ${knowledgeBases} where ${knowledgeBases.name} = 'default'`
      }) g`);
  } catch (error) {
    if (sqlState(error) === "23503")
      throw invalid("knowledge_base_ids", "knowledge_base_ids names a knowledge base that does not exist.");
    throw error;
  }
  return { id, secret, prefix };
}

/** A public key's changed settings, merged into the stored ones by the UPDATE (a concurrent change to other fields stays). */
function widgetChanges(role: { next: KeyRole; current: KeyRole }, body: WidgetFields) {
  const { widget, userTokenSecret } = widgetColumns(role, body);
  return {
    ...(widget && Object.keys(widget).length > 0
      ? { widget: sql`${apiKeys.widget} || ${JSON.stringify(widget)}::jsonb` }
      : {}),
    ...(userTokenSecret !== undefined ? { userTokenSecret } : {}),
  };
}

/** The 409 for a change the lockout rule refused (admins.ts), naming which admin key it protects. */
function lastAdmin(key: ApiKeyListing, what: string): ApiError {
  return key.expiresAt
    ? new ApiError("last_admin", `This is the last active admin key: create another admin key before ${what} it.`)
    : new ApiError(
        "last_admin",
        `This is the last active admin key without an expiry: create another admin key without an expiry before ${what} it (the keys that expire would leave no admin once they lapse).`,
      );
}

/**
 * Revokes a key; false when no live key has that id. Takes effect on the next request. The last
 * active admin key, or the last one without an expiry, cannot be revoked (409 `last_admin`),
 * decided inside the one statement.
 */
export async function revokeKey(db: Db, id: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), lastAdminGuard(now)))
    .returning({ id: apiKeys.id });
  if (rows.length === 1) return true;
  const current = await getKey(db, id);
  if (current && !current.revokedAt) throw lastAdmin(current, "revoking");
  return false;
}

/** What `keys update` and PATCH /v1/keys/:id may change; undefined: unchanged. */
export interface KeyChanges extends Partial<KeyLimits> {
  name?: string;
  role?: KeyRole;
  knowledgeBaseIds?: string[];
  expiresAt?: Date | null;
  widget?: WidgetFields;
}

/**
 * Changes a live key; false when no live key has that id. A new plan starts from its own
 * defaults: limits the key carried under its old plan are dropped unless given again. Demoting
 * or expiring the last active admin key, or the last one without an expiry, is refused (409
 * `last_admin`). Grants are replaced as a whole.
 */
export async function updateKey(db: Db, id: string, changes: KeyChanges, now = new Date()): Promise<boolean> {
  const current = await getKey(db, id);
  if (!current || current.revokedAt) return false;
  const keep = changes.plan === undefined || changes.plan === current.plan;
  const next = {
    plan: changes.plan ?? current.plan,
    rpm: changes.rpm !== undefined ? changes.rpm : keep ? current.rpm : null,
    rpd: changes.rpd !== undefined ? changes.rpd : keep ? current.rpd : null,
    // The token budget is not a plan default: it stays across a plan change unless given.
    tpd: changes.tpd !== undefined ? changes.tpd : current.tpd,
  };
  limitsOk(next);
  checkExpiry(changes.expiresAt, now);
  const role = { next: changes.role ?? current.role, current: current.role };
  const set = {
    ...next,
    ...widgetChanges(role, changes.widget ?? {}),
    ...(changes.name !== undefined ? { name: checkName(changes.name) } : {}),
    ...(changes.role !== undefined ? { role: changes.role } : {}),
    ...(changes.expiresAt !== undefined ? { expiresAt: changes.expiresAt } : {}),
  };
  const demotes = changes.role === "chat" || (changes.expiresAt != null && current.role === "admin");
  // The key's fields and its grants change together: a bad knowledge base id changes nothing.
  const changed = await db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set(set)
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), demotes ? lastAdminGuard(now) : undefined))
      .returning({ id: apiKeys.id });
    if (rows.length === 0 || changes.knowledgeBaseIds === undefined) return rows.length > 0;
    await tx.delete(keyKnowledgeBases).where(eq(keyKnowledgeBases.keyId, id));
    await grant(tx as unknown as Db, id, changes.knowledgeBaseIds);
    return true;
  });
  if (!changed) {
    const still = await getKey(db, id);
    if (demotes && still && !still.revokedAt) throw lastAdmin(still, changes.role === "chat" ? "demoting" : "expiring");
    return false;
  }
  return true;
}

/** Keys as listed (never their secrets): the CLI's `keys list`, GET /v1/keys and /v1/keys/:id. */
import { desc, eq, sql } from "drizzle-orm";
import type { KeyRole } from "../contract/keys.ts";
import type { Db } from "../db/client.ts";
import { apiKeys, type StoredWidgetSettings } from "../db/schema.ts";
import { type Cursor, encodeCursor } from "../http/cursor.ts";
import type { KeyLimits } from "./limits.ts";

/** A stored key with its grants: what `keys list` and GET /v1/keys show (never the secret). */
export interface ApiKeyListing {
  id: string;
  name: string;
  prefix: string;
  role: KeyRole;
  plan: KeyLimits["plan"];
  rpm: number | null;
  rpd: number | null;
  /** Daily token budget; null: none. */
  tpd: number | null;
  knowledgeBaseIds: string[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  widget: StoredWidgetSettings | null;
  /** Whether a public key takes user tokens its site signs (the secret itself is never read back). */
  userTokens: boolean;
}

const listing = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  role: apiKeys.role,
  plan: apiKeys.plan,
  rpm: apiKeys.rpm,
  rpd: apiKeys.rpd,
  tpd: apiKeys.tpd,
  knowledgeBaseIds: sql<
    string[]
  >`array(select g.kb_id from key_knowledge_bases g where g.key_id = "api_keys"."id" order by 1)`,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  widget: apiKeys.widget,
  userTokens: sql<boolean>`${apiKeys.userTokenSecret} is not null`,
};

/** Every key, oldest first (the CLI's `keys list`). */
export async function listKeys(db: Db): Promise<ApiKeyListing[]> {
  return db.select(listing).from(apiKeys).orderBy(apiKeys.createdAt, apiKeys.id);
}

/** A page of keys, newest first, revoked ones included (they show `revoked_at`). */
export async function pageKeys(db: Db, limit: number, cursor: Cursor | null) {
  const rows = await db
    .select(listing)
    .from(apiKeys)
    .where(
      cursor
        ? sql`(${apiKeys.createdAt}, ${apiKeys.id}) < (${new Date(cursor.createdAt).toISOString()}::timestamptz, ${cursor.id})`
        : undefined,
    )
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page,
    hasMore,
    nextCursor: hasMore && last ? await encodeCursor(db, { createdAt: last.createdAt.getTime(), id: last.id }) : null,
  };
}

export async function getKey(db: Db, id: string): Promise<ApiKeyListing | null> {
  const [row] = await db.select(listing).from(apiKeys).where(eq(apiKeys.id, id));
  return row ?? null;
}

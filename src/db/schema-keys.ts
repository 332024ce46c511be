/**
 * API keys, their grants and the gate's per-key counters. A public key (`role = 'public'`) carries
 * its widget settings (`widget`: allowed origins, visitor and IP limits, proof of work) and, for
 * sites that sign their own users in, the secret their user tokens are signed with.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { KEY_ROLES, type PublicKeySettings } from "../contract/keys.ts";
import { PLANS } from "../contract/plans.ts";
import { knowledgeBases } from "./schema-knowledge.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

/** A public key's settings as stored: the wire's, but for `user_tokens`, which says whether `user_token_secret` is set. */
export type StoredWidgetSettings = Omit<PublicKeySettings, "user_tokens">;

/** API keys: only the SHA-256 of the secret is stored, plus a short prefix to recognise it by. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    hash: text("hash").notNull(),
    prefix: text("prefix").notNull(),
    plan: text("plan", { enum: PLANS }).notNull(),
    /** Per-key overrides; null means "the plan's default". */
    rpm: integer("rpm"),
    rpd: integer("rpd"),
    /** Optional daily token budget (input + output, UTC day); null means none. */
    tpd: integer("tpd"),
    /** `admin` keys manage knowledge bases, documents and keys; `chat` keys (the default) only use them. */
    role: text("role", { enum: KEY_ROLES }).notNull().default("chat"),
    createdAt: ts("created_at").notNull(),
    revokedAt: ts("revoked_at"),
    /** A key past this instant is refused with 401 `key_expired`; null: never expires. */
    expiresAt: ts("expires_at"),
    /** Written at most once a minute per key (auth/keys.ts), so the hot path stays read-only. */
    lastUsedAt: ts("last_used_at"),
    /** A public key's settings; null for the other roles (the check below ties the two). */
    widget: jsonb("widget").$type<StoredWidgetSettings>(),
    /** A public key's HS256 secret for user tokens its site signs; null: anonymous visitors. Never shown. */
    userTokenSecret: text("user_token_secret"),
  },
  (t) => [
    check("api_keys_public_widget_ck", sql`(${t.role} = 'public') = (${t.widget} is not null)`),
    uniqueIndex("api_keys_hash_uq").on(t.hash),
    index("api_keys_created_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);

/** Which knowledge bases a (chat) key may use; deleting either side removes the grant. */
export const keyKnowledgeBases = pgTable(
  "key_knowledge_bases",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    kbId: text("kb_id")
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.kbId] }), index("key_knowledge_bases_kb_idx").on(t.kbId)],
);

/**
 * One row per key: the last minute's admitted requests (a sliding log, ratelimit/service.ts) and
 * the day's count. A single INSERT … ON CONFLICT … DO UPDATE … WHERE decides and records.
 */
export const rateLimits = pgTable("rate_limits", {
  keyId: text("key_id")
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: "cascade" }),
  /** The previous release's log: kept one release for rolling deploys (drizzle/0023). */
  hits: bigint("hits", { mode: "number" }).array().notNull().default(sql`'{}'::bigint[]`),
  counts: integer("counts").array().notNull().default(sql`'{}'::integer[]`),
  /** Buckets' last ms, ascending, and running counts (one longer): ratelimit/service.ts. */
  ends: bigint("ends", { mode: "number" }).array().notNull().default(sql`'{}'::bigint[]`),
  cum: bigint("cum", { mode: "number" }).array().notNull().default(sql`'{0}'::bigint[]`),
  day: date("day", { mode: "string" }).notNull(),
  dayCount: integer("day_count").notNull(),
});

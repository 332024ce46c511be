/**
 * The one Drizzle schema. The same tables, migrations and queries serve PGlite and PostgreSQL.
 * Timestamps are written by the app (millisecond precision, injectable clock) so that the
 * keyset cursor, which carries milliseconds, compares exactly with what is stored. */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { CERTAINTIES } from "../contract/analytics.ts";
import { MESSAGE_STATUSES } from "../contract/events.ts";
import { MESSAGE_ROLES } from "../contract/resources.ts";
import { apiKeys } from "./schema-keys.ts";
import { knowledgeBases } from "./schema-knowledge.ts";

export * from "./schema-analytics.ts";
export * from "./schema-keys.ts";
export * from "./schema-knowledge.ts";
export * from "./schema-setup.ts";
export * from "./schema-sources.ts";
export * from "./schema-widget.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

export const conversations = pgTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    /** A public key's visitor who owns it (with the key); null for a conversation of the key itself. */
    visitorId: text("visitor_id"),
    title: text("title").notNull(),
    /** The knowledge base its replies search and cite; null once that knowledge base is deleted (nothing is cited). */
    kbId: text("kb_id").references(() => knowledgeBases.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  // Keyset pagination walks this index. Plain DESC (= NULLS FIRST) on purpose: only then does it
  // match `ORDER BY created_at DESC, id DESC`, so the page is an index range scan at any depth.
  (t) => [
    index("conversations_key_created_idx").on(t.keyId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // A visitor's list walks its own range; the key's other conversations are not in it.
    index("conversations_visitor_created_idx")
      .on(t.keyId, t.visitorId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.visitorId} is not null`),
  ],
);

/** A reply's life: `in_progress` from the moment its run starts, then one terminal state. */
export const messages = pgTable(
  "messages",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    role: text("role", { enum: MESSAGE_ROLES }).notNull(),
    content: text("content").notNull(),
    sources: jsonb("sources").$type<string[]>().notNull().default([]),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    /** How sure an assistant reply is of its answer (contract/analytics.ts); null for a user message, a running reply, or one stored before it was recorded. */
    certainty: text("certainty", { enum: CERTAINTIES }),
    createdAt: ts("created_at").notNull(),
    /** Token counts the model provider reported for an assistant reply; null when it reported none. */
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    /**
     * While `in_progress`: the generating instance renews this with every flush and heartbeat;
     * once it has passed, any instance may end the reply as `failed` (replies/statements.ts, the sweep).
     */
    leaseUntil: ts("lease_until"),
    /** Set by POST …/stop on any instance; the generating one reads it at each flush. */
    stopRequested: boolean("stop_requested").notNull().default(false),
    /** Sequence number of the reply's last stored event (message_events.seq). */
    lastSeq: integer("last_seq").notNull().default(0),
    /**
     * Set when the reply's events were compacted (replies/compact.ts): the cumulative text length,
     * in characters, after each token event, from `compacted_events.first` on. Null: not compacted.
     */
    tokenOffsets: integer("token_offsets").array(),
    /** A compacted reply's other events verbatim (`kept`: [seq, data] pairs), its first token seq, and its token text when it is not `content`. */
    compactedEvents: jsonb("compacted_events").$type<{ first: number; kept: [number, string][]; text?: string }>(),
  },
  (t) => [
    index("messages_conversation_idx").on(t.conversationId, t.createdAt, t.id),
    // The sweep looks only at running replies: a partial index stays as small as they are few.
    index("messages_running_idx").on(t.leaseUntil).where(sql`${t.status} = 'in_progress'`),
    check("messages_certainty_ck", sql`${t.certainty} in (${sql.raw(CERTAINTIES.map((c) => `'${c}'`).join(", "))})`),
    // analytics/ copies ended replies in, by the time they were asked.
    index("messages_replies_created_idx").on(t.createdAt).where(sql`${t.role} = 'assistant'`),
    // The compaction sweep looks only at ended replies not yet compacted.
    index("messages_compact_due_idx")
      .on(t.createdAt)
      .where(sql`${t.role} = 'assistant' and ${t.status} <> 'in_progress' and ${t.tokenOffsets} is null`),
  ],
);

/**
 * A reply's SSE events as sent, numbered from 1 (the SSE `id:`), so a client can resume after
 * any id on any instance. `data` is the exact JSON text of the event's `data:` line. No foreign
 * key: a statement trigger deletes deleted messages' events (drizzle/0022, docs/architecture.md).
 */
export const messageEvents = pgTable(
  "message_events",
  {
    messageId: text("message_id").notNull(),
    seq: integer("seq").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.seq] })],
);

/**
 * Idempotency-Key records of POST /chat, per API key, kept 24 h: the first request's body hash
 * and the reply it started (or the error it ended with before starting one).
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    idemKey: text("idem_key").notNull(),
    bodyHash: text("body_hash").notNull(),
    /** The assistant message the request started; null until it has. */
    messageId: text("message_id"),
    /** An error the first request ended with before any reply existed: its status and body. */
    errorStatus: integer("error_status"),
    errorBody: text("error_body"),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.idemKey] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);

/**
 * Secrets every instance shares, made on first use by whichever instance comes first (insert …
 * on conflict do nothing, then read): e.g. `cursor_hmac`, the key that signs list cursors.
 */
export const instanceSecrets = pgTable("instance_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});

/** Usage per key and UTC day, added to inside statements requests already run (docs/operations.md#usage-per-key). */
export const usageDaily = pgTable(
  "usage_daily",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    turns: bigint("turns", { mode: "number" }).notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    refusals: bigint("refusals", { mode: "number" }).notNull().default(0),
    /**
     * Which of a key's rows for the day this is: each database connection adds to its own
     * (pg_backend_pid() % 8), so concurrent requests of one key do not queue on one row lock
     * until commit. A day's usage is the sum of its shards.
     */
    shard: smallint("shard").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.shard] }), index("usage_daily_day_idx").on(t.day)],
);

/** The usage_daily shard of this connection (as the triggers of drizzle/0018 compute it). */
export const usageShard = sql<number>`pg_backend_pid() % 8`;

/** One rating per assistant message; a new one replaces it. */
export const messageFeedback = pgTable(
  "message_feedback",
  {
    messageId: text("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    rating: text("rating", { enum: ["up", "down"] }).notNull(),
    comment: text("comment"),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("message_feedback_updated_idx").on(t.updatedAt.desc().nullsFirst(), t.messageId.desc().nullsFirst())],
);

/** A stored conversation. */
export type ConversationRow = typeof conversations.$inferSelect;
/** A stored message. */
export type MessageRow = typeof messages.$inferSelect;

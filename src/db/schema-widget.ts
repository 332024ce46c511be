/**
 * The widget's tables: the limiter's counters per visitor and per client IP of a public key
 * (ratelimit/visitors.ts writes them, like `rate_limits` per key), and the proofs of work already
 * spent (widget/ writes them), so one solved challenge opens one session.
 */
import { sql } from "drizzle-orm";
import { bigint, date, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { apiKeys } from "./schema-keys.ts";

/** One row per (public key, subject): `v:<visitor id>` or `ip:<address>`; the same log as `rate_limits`. */
export const visitorRateLimits = pgTable(
  "visitor_rate_limits",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    ends: bigint("ends", { mode: "number" }).array().notNull().default(sql`'{}'::bigint[]`),
    cum: bigint("cum", { mode: "number" }).array().notNull().default(sql`'{0}'::bigint[]`),
    day: date("day", { mode: "string" }).notNull(),
    dayCount: integer("day_count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.subject] }), index("visitor_rate_limits_day_idx").on(t.day)],
);

/** A spent proof of work, by its challenge's signature, until the challenge would have expired anyway. */
export const spentProofs = pgTable(
  "spent_proofs",
  {
    signature: text("signature").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3, mode: "date" }).notNull(),
  },
  (t) => [index("spent_proofs_expires_idx").on(t.expiresAt)],
);

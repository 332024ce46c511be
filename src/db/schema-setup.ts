/**
 * The first-run setup table of the one Drizzle schema (re-exported by schema.ts): the one-time
 * codes a server prints at start while the store has no admin key (auth/setup.ts).
 */
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

/**
 * Live setup codes, one per server start without an admin key; only their SHA-256 is stored. Any
 * live one may be exchanged, once, for the first admin key; the exchange deletes them all.
 */
export const setupCodes = pgTable("setup_codes", {
  codeHash: text("code_hash").primaryKey(),
  createdAt: ts("created_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
});

/**
 * The web-source tables of the one Drizzle schema (re-exported by schema.ts): a knowledge base's
 * sources (sites it crawls), their syncs, and what each sync saw of each page (the validators for
 * conditional requests, the page's raw Markdown for the boilerplate pass, the hash last stored).
 * The documents a source stored carry its id (documents.source_id, schema-knowledge.ts).
 */
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { knowledgeBases } from "./schema-knowledge.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

/** A site a knowledge base crawls; one per (knowledge base, start URL). */
export const sources = pgTable(
  "sources",
  {
    id: text("id").primaryKey(),
    kbId: text("kb_id")
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    url: text("url").notNull(),
    include: jsonb("include").$type<string[]>().notNull().default([]),
    exclude: jsonb("exclude").$type<string[]>().notNull().default([]),
    maxPages: integer("max_pages").notNull(),
    maxDepth: integer("max_depth").notNull(),
    /** Query strings are part of a page's URL (else folded away: `?ref=nav` is the same page). */
    keepQuery: boolean("keep_query").notNull().default(false),
    /** Null: synced only when asked. */
    refreshIntervalHours: integer("refresh_interval_hours"),
    /** When the scheduler next starts a sync; moved forward by the instance that claims it. */
    nextSyncAt: ts("next_sync_at"),
    /** A sync may delete more than half of the source's documents (the guard is off). */
    allowLargeDeletions: boolean("allow_large_deletions").notNull().default(false),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    check("sources_type_ck", sql`${t.type} in ('auto', 'sitemap', 'crawl', 'llms_txt')`),
    uniqueIndex("sources_kb_url_uq").on(t.kbId, t.url),
    index("sources_kb_id_idx").on(t.kbId, t.id.desc().nullsFirst()),
    index("sources_next_sync_idx").on(t.nextSyncAt),
  ],
);

/**
 * One sync of a source. At most one is `running` per source (a partial unique index: the claim
 * is an INSERT that conflicts), whatever the instance; its instance renews `lease_until`, and a
 * running sync whose lease passed is ended as failed by any instance's scheduler.
 */
export const sourceSyncs = pgTable(
  "source_syncs",
  {
    id: text("id").primaryKey(),
    sourceId: text("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    status: text("status").notNull(),
    /** What started it: `created` (the source's first), `manual` (POST …/sync), `scheduled`. */
    trigger: text("trigger").notNull(),
    startedAt: ts("started_at").notNull(),
    finishedAt: ts("finished_at"),
    leaseUntil: ts("lease_until").notNull(),
    /** Page counts (the wire's `pages`), written while it runs. */
    pages: jsonb("pages").$type<Record<string, number>>().notNull().default({}),
    /** At most a bounded number of `{url, reason}`. */
    errors: jsonb("errors").$type<{ url: string; reason: string }[]>().notNull().default([]),
    /** Why it failed or was cancelled, when it did. */
    error: text("error"),
  },
  (t) => [
    check("source_syncs_status_ck", sql`${t.status} in ('running', 'completed', 'failed', 'cancelled')`),
    check("source_syncs_trigger_ck", sql`${t.trigger} in ('created', 'manual', 'scheduled')`),
    uniqueIndex("source_syncs_running_uq").on(t.sourceId).where(sql`${t.status} = 'running'`),
    index("source_syncs_source_idx").on(t.sourceId, t.id.desc().nullsFirst()),
    index("source_syncs_lease_idx").on(t.leaseUntil).where(sql`${t.status} = 'running'`),
  ],
);

/**
 * What the syncs saw of each URL they asked for (its key: the requested URL, which the next
 * crawl asks again). `document_url` is where the page is stored (after redirects and canonical);
 * `markdown` the page as crawled, before the boilerplate pass, so a re-sync whose pages answer
 * 304 still cleans every page against the whole site; `stored_hash` the hash of the cleaned text
 * last written to the document (equal: the document is not re-indexed).
 */
export const sourcePages = pgTable(
  "source_pages",
  {
    sourceId: text("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    documentUrl: text("document_url").notNull(),
    title: text("title").notNull(),
    markdown: text("markdown").notNull(),
    lang: text("lang"),
    links: jsonb("links").$type<string[]>().notNull().default([]),
    etag: text("etag"),
    lastModified: text("last_modified"),
    storedHash: text("stored_hash"),
    /** The last sync that fetched it, had a 304 for it, or kept it through a failed fetch. */
    seenSyncId: text("seen_sync_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.url] }), index("source_pages_seen_idx").on(t.sourceId, t.seenSyncId)],
);

/** Web sources of a knowledge base and their syncs, in wire form (dates are ISO 8601). */

/**
 * How a source finds its pages. `auto`: robots.txt `Sitemap:` lines, /sitemap.xml and /llms.txt,
 * and always the links of every page within scope; `sitemap` / `llms_txt`: that list's pages
 * only; `crawl`: the start page and its links only.
 */
export const SOURCE_TYPES = ["auto", "sitemap", "crawl", "llms_txt"] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const SYNC_STATUSES = ["running", "completed", "failed", "cancelled"] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** What started a sync: the source's creation, POST …/sync, or its refresh interval. */
export const SYNC_TRIGGERS = ["created", "manual", "scheduled"] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];

/** A sync's page counts, moving while it runs. */
export interface SyncPages {
  /** URLs found within scope (start page, lists, links). */
  discovered: number;
  /** Pages read (200). */
  fetched: number;
  /** Pages the site answered 304 Not Modified (conditional request from the stored validators). */
  not_modified: number;
  /** Documents the sync created, replaced (text changed) or left as they were (same text). */
  created: number;
  updated: number;
  unchanged: number;
  /** Documents deleted: their page is gone (404/410, or in no list and linked from nowhere). */
  deleted: number;
  /** URLs not stored: disallowed by robots.txt, not HTML, a duplicate, 404, a hand-uploaded document's URL. */
  skipped: number;
  /** URLs that could not be read (errors, timeouts, too large, blocked addresses); their documents are kept. */
  failed: number;
}

export interface SyncError {
  url: string;
  reason: string;
}

export interface SourceSync {
  id: string;
  source_id: string;
  status: SyncStatus;
  trigger: SyncTrigger;
  started_at: string;
  finished_at: string | null;
  pages: SyncPages;
  /** The first URLs that failed or were skipped, with why (at most 50). */
  errors: SyncError[];
  /** Why the sync failed or was cancelled, or what it declined to do (the deletion guard). */
  error: string | null;
}

export interface Source {
  id: string;
  knowledge_base_id: string;
  type: SourceType;
  url: string;
  include: string[];
  exclude: string[];
  max_pages: number;
  max_depth: number;
  /** Query strings are part of page URLs (`?page=2` is another page); false: folded away. */
  keep_query_strings: boolean;
  /** Re-synced this often; null: only when asked. */
  refresh_interval_hours: number | null;
  /** When the next scheduled sync starts (null without a refresh interval). */
  next_sync_at: string | null;
  /** A sync may delete more than half of its documents at once. */
  allow_large_deletions: boolean;
  /** Documents the source's syncs stored. */
  document_count: number;
  created_at: string;
  last_sync: SourceSync | null;
}

export interface SourceList {
  data: Source[];
}

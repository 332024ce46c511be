/** Rows of sources and syncs in wire form (src/contract/sources.ts). */
import type { Source, SourceSync, SourceType, SyncPages, SyncStatus, SyncTrigger } from "../contract/sources.ts";
import { NO_PAGES, type SourceRow, type SyncRow } from "./store.ts";

export const syncWire = (row: SyncRow): SourceSync => ({
  id: row.id,
  source_id: row.sourceId,
  status: row.status as SyncStatus,
  trigger: row.trigger as SyncTrigger,
  started_at: row.startedAt.toISOString(),
  finished_at: row.finishedAt?.toISOString() ?? null,
  pages: { ...NO_PAGES, ...(row.pages as Partial<SyncPages>) },
  errors: row.errors,
  error: row.error,
});

export const sourceWire = (row: SourceRow, lastSync: SyncRow | undefined, documentCount: number): Source => ({
  id: row.id,
  knowledge_base_id: row.kbId,
  type: row.type as SourceType,
  url: row.url,
  include: row.include,
  exclude: row.exclude,
  max_pages: row.maxPages,
  max_depth: row.maxDepth,
  keep_query_strings: row.keepQuery,
  refresh_interval_hours: row.refreshIntervalHours,
  next_sync_at: row.nextSyncAt?.toISOString() ?? null,
  allow_large_deletions: row.allowLargeDeletions,
  document_count: documentCount,
  created_at: row.createdAt.toISOString(),
  last_sync: lastSync ? syncWire(lastSync) : null,
});

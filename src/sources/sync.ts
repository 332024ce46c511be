/**
 * One sync of a source, start to end: the crawl (every page recorded in source_pages as it comes,
 * validators from the last sync sent), then the store pass (store-pass.ts: boilerplate removed
 * against the whole site, changed pages stored), then, only when the crawl saw the whole site,
 * the deletion of pages that are gone, behind the half guard. Progress and the lease are written
 * at most once a second; a renewal that finds the sync no longer running stops it.
 */

import type { Logger } from "../config/logger.ts";
import type { SourceOptions } from "../config/options.ts";
import type { SyncPages, SyncStatus } from "../contract/sources.ts";
import type { Db } from "../db/client.ts";
import { deleteSourceDocumentsExcept } from "../knowledge/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { unrefTimer } from "../primitives.ts";
import type { Trace } from "../tracing/index.ts";
import { crawlSite } from "./crawl.ts";
import type { CrawledPage } from "./crawl-types.ts";
import { convertFile, FILE_EXTENSIONS } from "./file-documents.ts";
import { dropUnseen, markSeen, savePages, seenDocumentUrls, validatorsOf } from "./page-store.ts";
import { finishSync, NO_PAGES, renewSync, type SourceRow } from "./store.ts";
import { storePass } from "./store-pass.ts";
import { userAgent } from "./user-agent.ts";

/** The first errors of a sync are kept, with their URL: enough to act on, bounded in size. */
export const MAX_SYNC_ERRORS = 50;
const PROGRESS_EVERY_MS = 1_000;
/**
 * Crawled pages, and the URLs seen unchanged (or failed), wait in memory for one statement per
 * this many (and before the store pass): a statement per page cost a round trip each, most of a
 * re-sync's time on PostgreSQL. Bounded, so memory does not grow with the site.
 */
const PAGES_PER_WRITE = 50;
const SEEN_PER_WRITE = 500;

export interface SyncDeps {
  db: Db;
  now: () => number;
  logger: Logger;
  metrics?: Metrics;
  sources: SourceOptions;
}

/** Why a sync stopped early: its signal (shutdown, DELETE) or its lease lost to another instance. */
class SyncStopped extends Error {}
const STOPPED =
  "The sync was stopped before it ended (the server shut down, the source was deleted, or its lease lapsed): nothing was deleted.";

export async function runSync(
  deps: SyncDeps,
  source: SourceRow,
  syncId: string,
  signal: AbortSignal,
  trace: Trace,
): Promise<SyncStatus> {
  const span = trace.start("source.sync", { "parley.source_id": source.id, "parley.sync_id": syncId });
  const started = deps.now();
  const pages: SyncPages = { ...NO_PAGES };
  const errors: { url: string; reason: string }[] = [];
  const note = (url: string, reason: string) => {
    if (errors.length < MAX_SYNC_ERRORS) errors.push({ url, reason });
  };
  const stop = new AbortController();
  const crawlSignal = AbortSignal.any([signal, stop.signal]);
  let lastWrite = started;
  const progress = async (force = false) => {
    if (signal.aborted || stop.signal.aborted) throw new SyncStopped(STOPPED);
    if (!force && deps.now() - lastWrite < PROGRESS_EVERY_MS) return;
    lastWrite = deps.now();
    const now = new Date(lastWrite);
    if (!(await renewSync(deps.db, { id: syncId, now, leaseMs: deps.sources.leaseMs, pages, errors }))) {
      stop.abort();
      throw new SyncStopped(STOPPED);
    }
  };
  // The lease is renewed on a timer too: a long Crawl-delay or one slow page writes no progress,
  // and must not let another instance end a sync that is alive.
  const keeper = setInterval(
    () => {
      const now = new Date(deps.now());
      renewSync(deps.db, { id: syncId, now, leaseMs: deps.sources.leaseMs, pages, errors })
        .then((running) => running || stop.abort())
        .catch(() => {}); // the store is down: the next renewal, or the lease, decides
    },
    Math.max(250, Math.floor(deps.sources.leaseMs / 3)),
  );
  unrefTimer(keeper);
  const count = (outcome: "fetched" | "not_modified" | "skipped" | "failed") =>
    deps.metrics?.sourcePages.inc({ outcome });
  const toSave: CrawledPage[] = [];
  const toMark: string[] = [];
  const write = async (force = false) => {
    if (force || toSave.length >= PAGES_PER_WRITE) await savePages(deps.db, source.id, syncId, toSave.splice(0));
    if (force || toMark.length >= SEEN_PER_WRITE) await markSeen(deps.db, source.id, syncId, toMark.splice(0));
  };
  let status: Exclude<SyncStatus, "running"> = "completed";
  let error: string | null = null;
  try {
    const validators = await validatorsOf(deps.db, source.id);
    let complete = false;
    for await (const event of crawlSite({
      startUrl: source.url,
      type: source.type as "auto",
      include: source.include,
      exclude: source.exclude,
      maxPages: source.maxPages,
      maxDepth: source.maxDepth,
      keepQuery: source.keepQuery,
      userAgent: userAgent(deps.sources.contactUrl),
      allowPrivateNetworks: deps.sources.allowPrivateNetworks,
      politeness: deps.sources.politeness,
      maxInFlightPerHost: deps.sources.maxInFlightPerHost,
      requestTimeoutMs: deps.sources.requestTimeoutMs,
      convertFile,
      fileExtensions: FILE_EXTENSIONS,
      validators: (url) => validators.get(url),
      signal: crawlSignal,
    })) {
      if (event.kind === "page") {
        toSave.push(event);
        pages.fetched++;
        count("fetched");
      } else if (event.kind === "not_modified") {
        toMark.push(event.url);
        pages.not_modified++;
        count("not_modified");
      } else if (event.kind === "failed") {
        // A page that could not be read this time keeps its document (a passing outage deletes nothing).
        toMark.push(event.url);
        pages.failed++;
        note(event.url, event.reason);
        count("failed");
      } else if (event.kind === "skipped") {
        pages.skipped++;
        if (event.reason !== "duplicate") note(event.url, event.reason);
        count("skipped");
      } else {
        pages.discovered = event.counts.discovered;
        complete = event.complete;
      }
      await write();
      await progress();
    }
    if (signal.aborted || stop.signal.aborted) throw new SyncStopped(STOPPED);
    await write(true);
    await storePass(deps, source, syncId, { pages, note, progress });
    if (complete) {
      const keep = await seenDocumentUrls(deps.db, source.id, syncId);
      const deletion = await deleteSourceDocumentsExcept(deps.db, {
        kbId: source.kbId,
        sourceId: source.id,
        keep,
        allowLarge: source.allowLargeDeletions,
        now: new Date(deps.now()),
      });
      pages.deleted = deletion.deleted;
      if (deletion.refused) {
        const { wouldDelete, of } = deletion.refused;
        error = `Deleted nothing: ${wouldDelete} of the source's ${of} documents are gone from the site, more than half. If the site really shrank, set allow_large_deletions on the source and sync again.`;
      } else await dropUnseen(deps.db, source.id, syncId);
    } else {
      error =
        "The crawl did not see the whole site (a page limit, a missing list, or robots.txt unreachable): nothing was deleted.";
    }
  } catch (e) {
    status = e instanceof SyncStopped || signal.aborted ? "cancelled" : "failed";
    error = e instanceof SyncStopped ? e.message : `The sync failed: ${(e as Error)?.message ?? String(e)}`;
    if (status === "failed")
      deps.logger.error({ source_id: source.id, sync_id: syncId, error: e }, "source sync failed");
  } finally {
    clearInterval(keeper);
  }
  await finishSync(deps.db, { id: syncId, status, now: new Date(deps.now()), pages, errors, error }).catch((e) =>
    deps.logger.warn({ sync_id: syncId, error: e }, "could not record the end of a source sync"),
  );
  deps.metrics?.sourceSyncs.observe({ status }, (deps.now() - started) / 1000);
  span.set({
    "parley.sync.status": status,
    ...Object.fromEntries(Object.entries(pages).map(([k, v]) => [`parley.sync.pages.${k}`, v])),
  });
  span.end(status === "failed" ? new Error(error ?? "failed") : undefined);
  return status;
}

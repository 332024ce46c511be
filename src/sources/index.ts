/**
 * Web sources: Parley crawls a documentation site and indexes it, and keeps it in sync. Other
 * folders reach this feature through this file only (tests/architecture.test.ts): the network half
 * lives in fetch/, what is done with a fetched page in content/, the crawl in crawl.ts, a sync of a
 * source in sync.ts (+ store-pass.ts), the syncs of one createParley in runner.ts, the routes in
 * routes.ts, the same operations for the CLI in manage.ts, and its tables' statements in store.ts
 * and page-store.ts.
 *
 * It exports the feature, not the crawler's libraries: the sync (and with it linkedom,
 * Readability, turndown, the sitemap parser) is loaded when the first sync starts, so a server
 * or CLI command that crawls nothing does not pay their start-up.
 */

export {
  addSource,
  checkCreateSource,
  deleteSource,
  getSource,
  listSources,
  type ManageDeps,
  readSync,
  syncSource,
} from "./manage.ts";
export { CreateSource, Source, SourceList, SourceSync, SyncPages } from "./model.ts";
export { type SourceDeps, sourceRoutes } from "./routes.ts";
export { createSourceSyncs, type SourceSyncs } from "./runner.ts";

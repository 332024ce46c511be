/**
 * Web sources: Parley crawls a documentation site and indexes it. Other folders reach this feature
 * through this file only (tests/architecture.test.ts): the network half lives in fetch/, what is
 * done with a fetched page in content/.
 */
export * from "./content/index.ts";
export {
  type CrawlCounts,
  type CrawlEvent,
  type CrawledPage,
  type CrawlOptions,
  cleanPages,
  crawlSite,
} from "./crawl.ts";
export * from "./fetch/index.ts";

/**
 * Web sources: Parley crawls a documentation site and indexes it. Other folders reach this feature
 * through this file only (tests/architecture.test.ts): the network half lives in fetch/, what is
 * done with a fetched page in content/.
 */

export { cleanPages, sha256Hex } from "./clean-pages.ts";
export * from "./content/index.ts";
export { crawlSite } from "./crawl.ts";
export type { CrawlCounts, CrawlEvent, CrawledPage, CrawlOptions } from "./crawl-types.ts";
export * from "./fetch/index.ts";

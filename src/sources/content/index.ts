/**
 * The content half of web sources: what a crawler does with a fetched page or file. Reading an
 * HTML page into Markdown (page-text.ts), the URL rules of a crawl (links.ts, glob.ts), the
 * URL lists a site publishes (sitemap.ts, llms-txt.ts), and removal of text repeated across
 * the site (boilerplate.ts). Web-standard and pure JS: it runs in the compiled binary and on Deno.
 */
export { BoilerplateFilter, type BoilerplateOptions, markdownBlocks } from "./boilerplate.ts";
export { globMatcher, globToRegExp } from "./glob.ts";
export {
  crawlScope,
  type LinkSource,
  looksLikePage,
  type NormalizeOptions,
  normalizeUrl,
  pageLinks,
  resolveHref,
  type Scope,
  type ScopeOptions,
} from "./links.ts";
export { type LlmsTxtLink, parseLlmsTxt } from "./llms-txt.ts";
export { type PageText, pageText } from "./page-text.ts";
export { SiteTitleFilter } from "./site-title.ts";
export { DEFAULT_MAX_SITEMAP_ENTRIES, parseSitemap, type Sitemap, type SitemapOptions } from "./sitemap.ts";
export { stripNonContent } from "./strip.ts";
export { htmlToMarkdown } from "./to-markdown.ts";

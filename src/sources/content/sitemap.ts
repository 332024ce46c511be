/**
 * sitemap.xml and sitemap index files (sitemaps.org protocol) → page URLs and nested sitemap
 * URLs. fast-xml-parser reads them (pure JS); namespace prefixes are dropped so
 * `<ns:urlset>` and a default namespace read alike. A sitemap that cannot be read gives empty
 * lists, not an error: a crawl falls back to following links.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";

/** What a sitemap file lists. */
export interface Sitemap {
  /** Page URLs (`<urlset><url><loc>`), in file order, duplicates removed. */
  pages: string[];
  /** Nested sitemaps (`<sitemapindex><sitemap><loc>`), to fetch in turn. */
  sitemaps: string[];
}

export interface SitemapOptions {
  /** Most entries kept per file (pages and sitemaps together); the protocol's own cap is 50,000. */
  maxEntries?: number;
}

export const DEFAULT_MAX_SITEMAP_ENTRIES = 50_000;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  // Every entry as an array, so one <url> reads like many.
  isArray: (name) => name === "url" || name === "sitemap",
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
});

/** The `<loc>` strings of a list of entries: trimmed, http(s) only. */
function locs(entries: unknown, max: number): string[] {
  if (!Array.isArray(entries)) return [];
  const out = new Set<string>();
  for (const entry of entries) {
    if (out.size >= max) break;
    const loc = (entry as { loc?: unknown } | null)?.loc;
    if (typeof loc !== "string") continue;
    const trimmed = loc.trim();
    if (/^https?:\/\//i.test(trimmed) && URL.canParse(trimmed)) out.add(new URL(trimmed).href);
  }
  return [...out];
}

/** Parses a sitemap or sitemap index; malformed XML gives empty lists. */
export function parseSitemap(xml: string, options: SitemapOptions = {}): Sitemap {
  const max = options.maxEntries ?? DEFAULT_MAX_SITEMAP_ENTRIES;
  const empty: Sitemap = { pages: [], sitemaps: [] };
  // The validator rejects what the parser would half-read (unclosed tags, stray text).
  if (XMLValidator.validate(xml) !== true) return empty;
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return empty;
  }
  const urlset = doc.urlset as { url?: unknown } | undefined;
  const index = doc.sitemapindex as { sitemap?: unknown } | undefined;
  const pages = locs(urlset?.url, max);
  const sitemaps = locs(index?.sitemap, max - pages.length);
  return { pages, sitemaps };
}

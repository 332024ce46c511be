/**
 * The URL lists a site publishes about itself, read before a crawl follows links: sitemaps
 * (robots.txt's Sitemap: lines, /sitemap.xml, nested sitemap indexes) and /llms.txt. They find
 * pages no link reaches; a list that is missing or unreadable simply adds nothing.
 */
import { parseLlmsTxt, parseSitemap } from "./content/index.ts";
import type { RobotsRules } from "./fetch/index.ts";

/** Nested sitemap indexes are followed up to this many files: a hostile index cannot make us loop. */
const MAX_SITEMAP_FILES = 50;

export interface SeedOptions {
  start: string;
  type: "auto" | "sitemap" | "crawl" | "llms_txt";
  robots: RobotsRules;
  /** Fetches a list file's text, undefined on any failure; the crawl's politeness and guard apply. */
  fetchText: (url: string, accept: string) => Promise<string | undefined>;
  signal: AbortSignal;
}

/** The page URLs the site's lists name, in list order (not yet normalised or scoped). */
export async function seedUrls(options: SeedOptions): Promise<string[]> {
  const { start, type, robots, fetchText, signal } = options;
  const origin = new URL(start).origin;
  const out: string[] = [];
  if (type === "auto" || type === "sitemap") {
    const files = [...robots.sitemaps, `${origin}/sitemap.xml`];
    const read = new Set<string>();
    while (files.length > 0 && read.size < MAX_SITEMAP_FILES && !signal.aborted) {
      const file = files.shift()!;
      // A sitemap of another origin is not followed: it is outside what this crawl may touch.
      if (read.has(file) || !URL.canParse(file) || new URL(file).origin !== origin || !robots.isAllowed(file)) continue;
      read.add(file);
      const xml = await fetchText(file, "application/xml,text/xml;q=0.9,*/*;q=0.5");
      if (xml === undefined) continue;
      const sitemap = parseSitemap(xml);
      files.push(...sitemap.sitemaps);
      out.push(...sitemap.pages);
    }
  }
  if ((type === "auto" || type === "llms_txt") && !signal.aborted) {
    const file = `${origin}/llms.txt`;
    const text = robots.isAllowed(file) ? await fetchText(file, "text/plain,text/markdown,*/*;q=0.5") : undefined;
    if (text !== undefined) out.push(...parseLlmsTxt(text, file).map((link) => link.url));
  }
  return out;
}

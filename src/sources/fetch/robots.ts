/**
 * robots.txt for one origin, read the way RFC 9309 says. Parsing is robots-parser's (groups,
 * longest-match precedence between Allow and Disallow, `*` and `$` patterns, percent-encoding):
 * the details are easy to get subtly wrong with a regex, and a crawler that ignores a site's wishes
 * gets blocked or worse.
 *
 * What the fetch outcome means (RFC 9309, section 2.3.1):
 * - 2xx: the rules apply.
 * - 4xx ("unavailable"): no rules, everything is allowed. 429 is the exception: it means "slow
 *   down", so it is treated like a server error, as the large crawlers do.
 * - 5xx, timeout, network failure ("unreachable"): assume everything is disallowed until a later
 *   crawl reads the file.
 * The fetch goes through safeFetch, so a robots.txt that redirects into a private network is
 * refused like any page; redirects are followed (up to five, as the RFC asks).
 */
import robotsParserModule from "robots-parser";
import { type SafeFetchOptions, safeFetch } from "./safe-fetch.ts";

/** What we use of robots-parser's parsed file. */
interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
/**
 * robots-parser is CommonJS (`module.exports = fn`): Bun and Node hand its default import over as
 * the function, Deno's type checker as the module object. One shape for both.
 */
const robotsParser = ((m: unknown) => (typeof m === "function" ? m : (m as { default: unknown }).default))(
  robotsParserModule,
) as (url: string, robotstxt: string) => Robot;

/** The product token site owners write in `User-agent:` lines to address Parley. */
export const ROBOTS_AGENT = "Parley";

/** robots.txt beyond 500 KiB may be ignored (RFC 9309, 2.5): a parser has to stop somewhere. */
const ROBOTS_MAX_BYTES = 500 * 1024;

export type RobotsSource = "fetched" | "unavailable" | "unreachable";

export interface RobotsRules {
  /** Whether Parley may fetch this URL. URLs of another origin are not governed by this file: false. */
  isAllowed(url: string | URL): boolean;
  /** The Crawl-delay for Parley's group (or `*`'s when Parley has none), in seconds. */
  crawlDelaySeconds: number | undefined;
  /** The `Sitemap:` URLs, which belong to the whole file, not to a group. */
  sitemaps: string[];
  /** How the rules were obtained, for logs and for deciding when to try again. */
  source: RobotsSource;
}

/** Rules from robots.txt text already in hand (also how tests exercise the parsing). */
export function parseRobots(robotsUrl: string, text: string, agent = ROBOTS_AGENT): RobotsRules {
  const robots = robotsParser(robotsUrl, text);
  return {
    // robots-parser answers undefined for another origin; we answer no rather than guess.
    isAllowed: (url) => robots.isAllowed(String(url), agent) === true,
    crawlDelaySeconds: robots.getCrawlDelay(agent),
    sitemaps: robots.getSitemaps(),
    source: "fetched",
  };
}

function allowAll(source: RobotsSource): RobotsRules {
  return { isAllowed: () => true, crawlDelaySeconds: undefined, sitemaps: [], source };
}

function disallowAll(): RobotsRules {
  return { isAllowed: () => false, crawlDelaySeconds: undefined, sitemaps: [], source: "unreachable" };
}

/** Fetches and reads robots.txt for the origin of `siteUrl`; never throws. */
export async function fetchRobots(
  siteUrl: string | URL,
  options: Omit<SafeFetchOptions, "validators" | "accept">,
): Promise<RobotsRules> {
  let robotsUrl: string;
  try {
    robotsUrl = new URL("/robots.txt", siteUrl).href;
  } catch {
    return disallowAll();
  }
  const result = await safeFetch(robotsUrl, {
    ...options,
    maxBytes: Math.min(options.maxBytes ?? ROBOTS_MAX_BYTES, ROBOTS_MAX_BYTES),
    accept: "text/plain,*/*;q=0.5",
  });
  // After a redirect the rules still govern the origin that was asked about, so they are parsed
  // against its robots.txt URL, not the final one.
  if (result.ok) return parseRobots(robotsUrl, result.bodyText);
  const status = result.status;
  if (status !== undefined && status >= 400 && status < 500 && status !== 429) return allowAll("unavailable");
  // A file over the limit is still the site speaking; the RFC allows parsing its first 500 KiB,
  // but safeFetch drops an oversized body, so we take the cautious reading.
  return disallowAll();
}

/**
 * One crawl of a documentation site, as a stream of events: robots.txt first (its rules, its
 * Crawl-delay, its Sitemap: lines), then the URL lists the site publishes (sitemaps, llms.txt),
 * then every in-scope link, breadth first by depth. Each URL is fetched once (normalised keys),
 * a page is stored under its final URL after redirects, or under its canonical URL when that is
 * in scope. The stream ends with `done`, whose `complete` says whether the crawl saw the whole
 * site: a sync may delete pages it did not see only when it did.
 *
 * Boilerplate is not removed here: the filter must observe every page before it can clean any,
 * and buffering every page's Markdown would hold the whole site in memory. Pages are yielded raw;
 * the caller stores them and runs cleanPages() over them afterwards (a second pass it can do from
 * disk or the database), so the crawl's own memory is only its URL sets.
 */
import {
  BoilerplateFilter,
  type BoilerplateOptions,
  crawlScope,
  normalizeUrl,
  type PageText,
  pageText,
  parseLlmsTxt,
  parseSitemap,
} from "./content/index.ts";
import {
  createUrlGuard,
  FETCH_DEFAULTS,
  fetchRobots,
  HostLimiter,
  type Resolver,
  type RobotsRules,
  type SafeFetchOptions,
  safeFetch,
  type UrlGuard,
  type Validators,
} from "./fetch/index.ts";

export interface CrawlOptions {
  startUrl: string;
  /** auto: robots Sitemap: lines, /sitemap.xml and /llms.txt; sitemap / llms_txt: that list only; crawl: links only. */
  type?: "auto" | "sitemap" | "crawl" | "llms_txt";
  include?: readonly string[];
  exclude?: readonly string[];
  maxPages?: number;
  maxDepth?: number;
  userAgent: string;
  guard?: UrlGuard;
  resolver?: Resolver;
  allowPrivateNetworks?: boolean;
  maxBytes?: number;
  totalTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * What was stored from the last crawl for a requested URL, for a conditional request. A 304 has
   * no body to read links from, so the stored page's links come back here too: without them,
   * pages reachable only through an unchanged page would vanish from the next crawl.
   */
  validators?: (url: string) => (Validators & { links?: readonly string[] }) | undefined;
  /** False only against our own servers (benchmarks, tests): no per-host cap, no Crawl-delay. */
  politeness?: boolean;
  maxInFlightPerHost?: number;
  signal?: AbortSignal;
}

export interface CrawledPage {
  kind: "page";
  /** Where the page is stored: its in-scope canonical URL, else its final URL. */
  url: string;
  /** The URL that was asked for; validators are stored under it (that is what the next crawl asks). */
  requestedUrl: string;
  title: string;
  markdown: string;
  lang?: string;
  /** Its in-scope links, to store with the validators for the next conditional crawl. */
  links: string[];
  etag: string | null;
  lastModified: string | null;
  /** SHA-256 hex of the Markdown: a sync re-embeds a page only when it changed. */
  contentHash: string;
}

export type CrawlEvent =
  | CrawledPage
  | { kind: "not_modified"; url: string }
  | { kind: "failed"; url: string; reason: string }
  | { kind: "skipped"; url: string; reason: string }
  | { kind: "done"; complete: boolean; counts: CrawlCounts };

export interface CrawlCounts {
  discovered: number;
  fetched: number;
  notModified: number;
  skipped: number;
  failed: number;
}

/** Nested sitemap indexes are followed up to this many files: a hostile index cannot make us loop. */
const MAX_SITEMAP_FILES = 50;
const HTML = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The second pass: boilerplate observed over all pages, then removed from each (hashes recomputed). */
export async function cleanPages(pages: readonly CrawledPage[], options?: BoilerplateOptions): Promise<CrawledPage[]> {
  const filter = new BoilerplateFilter(options);
  for (const page of pages) filter.observe(page.markdown);
  return Promise.all(
    pages.map(async (page) => {
      const markdown = filter.clean(page.markdown);
      return { ...page, markdown, contentHash: await sha256Hex(markdown) };
    }),
  );
}

type Fetched = {
  kind: "fetched";
  requested: string;
  final: string;
  text: PageText;
  etag: string | null;
  lastModified: string | null;
};
type Unchanged = { kind: "not_modified"; url: string; links: readonly string[] };
type Outcome = Fetched | Unchanged | Exclude<CrawlEvent, CrawledPage | { kind: "done" } | { kind: "not_modified" }>;

export async function* crawlSite(options: CrawlOptions): AsyncGenerator<CrawlEvent> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const limiter = new HostLimiter({
    enabled: options.politeness ?? true,
    maxInFlightPerHost: options.maxInFlightPerHost,
  });
  const counts: CrawlCounts = { discovered: 0, fetched: 0, notModified: 0, skipped: 0, failed: 0 };
  const maxPages = options.maxPages ?? 1000;
  const maxDepth = options.maxDepth ?? 10;
  const type = options.type ?? "auto";
  const guard =
    options.guard ?? createUrlGuard({ allowPrivateNetworks: options.allowPrivateNetworks, resolve: options.resolver });
  const fetchBase: SafeFetchOptions = {
    userAgent: options.userAgent,
    guard,
    maxBytes: options.maxBytes ?? FETCH_DEFAULTS.maxBytes,
    totalTimeoutMs: options.totalTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    signal,
  };
  // One promise every wait races against, so an abort ends the stream without waiting for a fetch.
  const aborted = new Promise<"aborted">((resolve) => {
    if (signal.aborted) resolve("aborted");
    signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const race = <T>(p: Promise<T>) => Promise.race([p, aborted]);
  const seen = new Set<string>();
  const done = (complete: boolean): CrawlEvent => {
    counts.discovered = seen.size;
    return { kind: "done", complete: complete && !signal.aborted, counts };
  };

  try {
    const start = normalizeUrl(options.startUrl);
    const verdict = start ? await race(guard(new URL(start))) : undefined;
    if (verdict === "aborted") return yield done(false);
    if (!start || !verdict?.ok) {
      counts.failed++;
      yield { kind: "failed", url: options.startUrl, reason: verdict && !verdict.ok ? verdict.reason : "bad_url" };
      return yield done(false);
    }
    const scope = crawlScope(start, { include: options.include, exclude: options.exclude });
    const robotsResult = await race(fetchRobots(start, fetchBase));
    if (robotsResult === "aborted") return yield done(false);
    const robots: RobotsRules = robotsResult;
    limiter.setCrawlDelay(start, robots.crawlDelaySeconds);
    const allowed = (url: string | URL) => scope(url) && robots.isAllowed(url);

    const queue: { url: string; depth: number }[] = [];
    const pending: CrawlEvent[] = [];
    const enqueue = (raw: string, depth: number) => {
      const url = normalizeUrl(raw);
      if (!url || !scope(url) || seen.has(url) || depth > maxDepth) return;
      seen.add(url);
      // Disallowed pages are reported, never fetched.
      if (robots.isAllowed(url)) queue.push({ url, depth });
      else pending.push({ kind: "skipped", url, reason: "robots_disallowed" });
    };
    const fetchList = (url: string, accept: string) =>
      race(limiter.schedule(url, () => safeFetch(url, { ...fetchBase, accept })).catch(() => undefined));

    enqueue(start, 0);
    if (type === "auto" || type === "sitemap") {
      const origin = new URL(start).origin;
      const files = [...robots.sitemaps, `${origin}/sitemap.xml`];
      const read = new Set<string>();
      while (files.length > 0 && read.size < MAX_SITEMAP_FILES) {
        const file = files.shift()!;
        // Sitemaps of another origin are not followed: they are outside what this crawl may touch.
        if (read.has(file) || !URL.canParse(file) || new URL(file).origin !== origin || !robots.isAllowed(file))
          continue;
        read.add(file);
        const result = await fetchList(file, "application/xml,text/xml;q=0.9,*/*;q=0.5");
        if (result === "aborted") return yield done(false);
        if (!result?.ok) continue;
        const sitemap = parseSitemap(result.bodyText);
        files.push(...sitemap.sitemaps);
        for (const page of sitemap.pages) enqueue(page, 0);
      }
    }
    if (type === "auto" || type === "llms_txt") {
      const file = new URL("/llms.txt", start).href;
      const result = robots.isAllowed(file) ? await fetchList(file, "text/plain,text/markdown,*/*;q=0.5") : undefined;
      if (result === "aborted") return yield done(false);
      if (result?.ok) for (const link of parseLlmsTxt(result.bodyText, file)) enqueue(link.url, 0);
    }

    /** Fetches one page; never throws (a closed limiter or a parse error becomes a failure). */
    const visit = async (url: string): Promise<Outcome> => {
      try {
        const validators = options.validators?.(url);
        const result = await limiter.schedule(url, () =>
          safeFetch(url, { ...fetchBase, inScope: allowed, validators }),
        );
        if (!result.ok) {
          if (result.status === 404 || result.status === 410) return { kind: "skipped", url, reason: result.reason };
          return { kind: "failed", url, reason: result.reason };
        }
        if (result.notModified) return { kind: "not_modified", url, links: validators?.links ?? [] };
        if (!result.contentType || !HTML.test(result.contentType)) return { kind: "skipped", url, reason: "not_html" };
        const text = pageText(result.bodyText, result.finalUrl);
        return {
          kind: "fetched",
          requested: url,
          final: result.finalUrl,
          text,
          etag: result.etag,
          lastModified: result.lastModified,
        };
      } catch (error) {
        return { kind: "failed", url, reason: signal.aborted ? "aborted" : (error as Error).message };
      }
    };

    const stored = new Set<string>();
    const inFlight = new Map<number, Promise<{ id: number; depth: number; outcome: Outcome }>>();
    const width = options.politeness === false ? 8 : Math.max(1, options.maxInFlightPerHost ?? 2);
    let started = 0;
    let nextId = 0;
    let truncated = false;
    for (;;) {
      for (const event of pending.splice(0)) {
        if (event.kind === "skipped") counts.skipped++;
        yield event;
      }
      while (queue.length > 0 && inFlight.size < width) {
        if (started >= maxPages) {
          truncated = true;
          break;
        }
        const { url, depth } = queue.shift()!;
        const id = nextId++;
        started++;
        inFlight.set(
          id,
          visit(url).then((outcome) => ({ id, depth, outcome })),
        );
      }
      if (inFlight.size === 0) break;
      const next = await race(Promise.race(inFlight.values()));
      if (next === "aborted") return yield done(false);
      inFlight.delete(next.id);
      const { outcome, depth } = next;
      if (outcome.kind === "not_modified") {
        counts.notModified++;
        for (const link of outcome.links) enqueue(link, depth + 1);
        yield { kind: "not_modified", url: outcome.url };
        continue;
      }
      if (outcome.kind !== "fetched") {
        if (outcome.kind === "failed") counts.failed++;
        else counts.skipped++;
        yield outcome;
        continue;
      }
      const final = normalizeUrl(outcome.final) ?? outcome.final;
      const canonical = outcome.text.canonical && normalizeUrl(outcome.text.canonical);
      const url = canonical && allowed(canonical) ? canonical : final;
      // The final and canonical URLs are this page: never fetched again when a link names them.
      seen.add(final);
      if (canonical) seen.add(canonical);
      for (const link of outcome.text.links) enqueue(link, depth + 1);
      if (stored.has(url)) {
        counts.skipped++;
        yield { kind: "skipped", url: outcome.requested, reason: "duplicate" };
        continue;
      }
      stored.add(url);
      counts.fetched++;
      const { title, markdown, lang } = outcome.text;
      const links = outcome.text.links.filter((link) => scope(link));
      yield {
        kind: "page",
        url,
        requestedUrl: outcome.requested,
        title,
        markdown,
        ...(lang ? { lang } : {}),
        links,
        etag: outcome.etag,
        lastModified: outcome.lastModified,
        contentHash: await sha256Hex(markdown),
      };
    }
    // Unreachable robots.txt disallows everything: the crawl saw nothing, so it is not complete.
    yield done(!truncated && robots.source !== "unreachable");
  } finally {
    // Also runs when the consumer stops iterating: in-flight fetches end, no limiter timer survives.
    stop.abort();
    limiter.close();
  }
}

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
import { sha256Hex } from "./clean-pages.ts";
import { crawlScope, normalizeUrl, type PageText, pageText } from "./content/index.ts";
import { type ConvertedFile, convertFetched, fileEvents } from "./crawl-files.ts";
import type { CrawlCounts, CrawlEvent, CrawledPage, CrawlOptions } from "./crawl-types.ts";
import {
  createUrlGuard,
  FETCH_DEFAULTS,
  fetchRobots,
  HostLimiter,
  type RobotsRules,
  type SafeFetchOptions,
  safeFetch,
} from "./fetch/index.ts";
import { seedUrls } from "./seeds.ts";

const HTML = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

type Fetched = { kind: "fetched"; requested: string; final: string; text: PageText } & Record<
  "etag" | "lastModified",
  string | null
>;
type Unchanged = { kind: "not_modified"; url: string; links: readonly string[] };
type Outcome =
  | Fetched
  | Unchanged
  | ConvertedFile
  | Exclude<CrawlEvent, CrawledPage | { kind: "done" } | { kind: "not_modified" }>;

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
  // Every wait races the abort, so an abort ends the stream without waiting for a fetch. Its
  // listener goes when the wait ends: racing one shared, never-settled promise instead kept every
  // wait's result (each page's text) reachable until the crawl ended, memory growing with the site.
  const race = <T>(p: Promise<T>) =>
    new Promise<T | "aborted">((resolve, reject) => {
      const onAbort = () => resolve("aborted");
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      // Always followed, so a rejection after an abort is still handled.
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  const seen = new Set<string>();
  const keys = { keepQuery: options.keepQuery ?? false };
  const done = (complete: boolean): CrawlEvent => {
    counts.discovered = seen.size;
    return { kind: "done", complete: complete && !signal.aborted, counts };
  };

  try {
    const start = normalizeUrl(options.startUrl, keys);
    const verdict = start ? await race(guard(new URL(start))) : undefined;
    if (verdict === "aborted") return yield done(false);
    if (!start || !verdict?.ok) {
      counts.failed++;
      yield { kind: "failed", url: options.startUrl, reason: verdict && !verdict.ok ? verdict.reason : "bad_url" };
      return yield done(false);
    }
    const scope = crawlScope(start, {
      include: options.include,
      exclude: options.exclude,
      documents: options.fileExtensions,
    });
    const robotsResult = await race(fetchRobots(start, fetchBase));
    if (robotsResult === "aborted") return yield done(false);
    const robots: RobotsRules = robotsResult;
    limiter.setCrawlDelay(start, robots.crawlDelaySeconds);
    const allowed = (url: string | URL) => scope(url) && robots.isAllowed(url);

    const queue: { url: string; depth: number }[] = [];
    const pending: CrawlEvent[] = [];
    const enqueue = (raw: string, depth: number) => {
      const url = normalizeUrl(raw, keys);
      if (!url || !scope(url) || seen.has(url) || depth > maxDepth) return;
      seen.add(url);
      // Disallowed pages are reported, never fetched.
      if (robots.isAllowed(url)) queue.push({ url, depth });
      else pending.push({ kind: "skipped", url, reason: "robots_disallowed" });
    };
    // sitemap and llms_txt crawl their list only: the start page only when the list names it, and
    // no links followed. auto and crawl start at the start page and follow links.
    const type = options.type ?? "auto";
    const follow = type === "auto" || type === "crawl";
    if (follow) enqueue(start, 0);
    const fetchText = async (url: string, accept: string) => {
      const result = await limiter.schedule(url, () => safeFetch(url, { ...fetchBase, accept })).catch(() => undefined);
      return result?.ok ? result.bodyText : undefined;
    };
    const seeds = await race(seedUrls({ start, type, robots, fetchText, signal }));
    if (seeds === "aborted") return yield done(false);
    // Listed pages are depth 0, like the start page: maxDepth counts link hops from either.
    for (const url of seeds) enqueue(url, 0);
    // A list mode whose list is missing or unreadable saw nothing of the site: not complete, so a
    // sync does not delete every stored page after one failed sitemap fetch.
    const listMissing = !follow && seeds.length === 0;

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
        if (!result.contentType || !HTML.test(result.contentType))
          return (
            (await convertFetched(url, result, options.convertFile)) ?? { kind: "skipped", url, reason: "not_html" }
          );
        const text = pageText(result.bodyText, result.finalUrl, keys);
        const { finalUrl: final, etag, lastModified } = result;
        return { kind: "fetched", requested: url, final, text, etag, lastModified };
      } catch (error) {
        return { kind: "failed", url, reason: signal.aborted ? "aborted" : (error as Error).message };
      }
    };

    const stored = new Set<string>();
    const inFlight = new Map<number, Promise<{ id: number; depth: number; outcome: Outcome }>>();
    // A crawl stays on one origin, so the per-host cap is the crawl's width; starting more tasks
    // would only queue them inside the limiter. Without politeness a small fixed width still
    // bounds open sockets.
    const width = options.politeness === false ? 8 : Math.max(1, options.maxInFlightPerHost ?? 2);
    let started = 0;
    let nextId = 0;
    let truncated = false;
    for (;;) {
      // The consumer may have aborted while it held the last event.
      if (signal.aborted) return yield done(false);
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
        if (follow) for (const link of outcome.links) enqueue(link, depth + 1);
        yield { kind: "not_modified", url: outcome.url };
        continue;
      }
      if (outcome.kind === "file") {
        counts.fetched++;
        for (const event of await fileEvents(outcome, stored)) yield event;
        continue;
      }
      if (outcome.kind !== "fetched") {
        if (outcome.kind === "failed") counts.failed++;
        else counts.skipped++;
        yield outcome;
        continue;
      }
      const final = normalizeUrl(outcome.final, keys) ?? outcome.final;
      const canonical = outcome.text.canonical && normalizeUrl(outcome.text.canonical, keys);
      const url = canonical && allowed(canonical) ? canonical : final;
      // The final and canonical URLs are this page: never fetched again when a link names them.
      seen.add(final);
      if (canonical) seen.add(canonical);
      if (follow) for (const link of outcome.text.links) enqueue(link, depth + 1);
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
    yield done(!truncated && !listMissing && robots.source !== "unreachable");
  } finally {
    // Also runs when the consumer stops iterating: in-flight fetches end, no limiter timer survives.
    stop.abort();
    limiter.close();
  }
}

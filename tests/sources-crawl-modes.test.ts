/**
 * crawlSite's maxDepth, its four types and robots.txt's Crawl-delay, against the fixture site in
 * tests/fixtures/site/crawl served on 127.0.0.1 (the server pattern of sources-crawl.test.ts).
 * What is fetched is checked at the server, which counts every request by path.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { crawlSite } from "../src/sources/crawl.ts";
import type { CrawlEvent, CrawledPage, CrawlOptions } from "../src/sources/crawl-types.ts";
import { fileFor, REDIRECTS, TYPES } from "./helpers/crawl-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const requests = new Map<string, number>();
/** Per-test replacement bodies by path; null serves a 404. */
let overrides: Record<string, string | null> = {};
let server: ReturnType<typeof Bun.serve>;
let origin = "";

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      if (path in overrides) {
        const body = overrides[path];
        return body === null || body === undefined
          ? new Response("not found", { status: 404 })
          : new Response(body, { headers: { "content-type": "text/plain" } });
      }
      const target = REDIRECTS[path];
      if (target) return new Response(null, { status: 301, headers: { location: target } });
      if (path === "/docs/feed") return Response.json({ items: [] });
      const file = fileFor(path);
      if (!file) return new Response("not found", { status: 404 });
      const body = readFileSync(file, "utf8").replaceAll("{{ORIGIN}}", origin);
      const ext = file.split(".").pop() ?? "";
      return new Response(body, { headers: { "content-type": TYPES[ext] ?? "application/octet-stream" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));
beforeEach(() => {
  requests.clear();
  overrides = {};
});

const base = (): CrawlOptions => ({
  startUrl: `${origin}/`,
  userAgent: "Parley/test (+https://example.com/bot)",
  allowPrivateNetworks: true,
  requestTimeoutMs: 2000,
});

async function collect(options: CrawlOptions): Promise<CrawlEvent[]> {
  const events: CrawlEvent[] = [];
  for await (const event of crawlSite(options)) events.push(event);
  return events;
}

const pageUrls = (events: CrawlEvent[]) =>
  events
    .filter((e): e is CrawledPage => e.kind === "page")
    .map((p) => p.url.replace(origin, ""))
    .sort();
const requested = () => [...requests.keys()].sort();
const last = (events: CrawlEvent[]) => events.at(-1) as Extract<CrawlEvent, { kind: "done" }>;

describe("crawlSite maxDepth", () => {
  test("maxDepth 0 fetches the start page only, no link from it", async () => {
    const events = await collect({ ...base(), type: "crawl", maxDepth: 0 });
    expect(requested()).toEqual(["/", "/robots.txt"]);
    expect(pageUrls(events)).toEqual(["/"]);
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });

  test("maxDepth 0 in auto mode: listed pages are depth 0 like the start page, their links are not", async () => {
    // Documented in crawl.ts: seeds from sitemaps and llms.txt are enqueued at depth 0, so
    // maxDepth counts link hops from the start page or from any listed page.
    const events = await collect({ ...base(), maxDepth: 0 });
    expect(pageUrls(events)).toEqual(["/", "/docs/api", "/docs/guide"]);
    // Linked from / or from the guide (depth 1): never requested.
    for (const path of ["/docs/hidden", "/old", "/docs/new", "/docs/missing", "/docs/feed", "/docs/alias"]) {
      expect(requests.get(path)).toBeUndefined();
    }
  });

  test("maxDepth 1 fetches the start page's direct links, not their links", async () => {
    const events = await collect({ ...base(), type: "crawl", maxDepth: 1 });
    for (const path of ["/", "/docs/guide", "/old", "/docs/missing", "/docs/feed", "/docs/alias", "/docs/loop"]) {
      expect(requests.get(path)).toBe(1);
    }
    // The redirect's target is part of fetching /old, not a second hop.
    expect(requests.get("/docs/new")).toBe(1);
    // Linked only from the guide (depth 2): never requested.
    expect(requests.get("/docs/hidden")).toBeUndefined();
    expect(requests.get("/docs/private")).toBeUndefined();
    expect(pageUrls(events)).not.toContain("/docs/hidden");
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });
});

describe("crawlSite types", () => {
  test("auto reads robots' Sitemap: lines, /sitemap.xml and /llms.txt, and follows links", async () => {
    const events = await collect(base());
    for (const path of ["/sitemaps/index.xml", "/sitemaps/pages.xml", "/sitemap.xml", "/llms.txt", "/docs/hidden"]) {
      expect(requests.get(path)).toBe(1);
    }
    expect(pageUrls(events)).toEqual(["/", "/docs/api", "/docs/guide", "/docs/hidden", "/docs/new"]);
  });

  test("sitemap fetches the sitemaps' pages only and follows no link", async () => {
    const events = await collect({ ...base(), type: "sitemap" });
    expect(requested()).toEqual([
      "/",
      "/docs/api",
      "/docs/guide",
      "/robots.txt",
      "/sitemap.xml",
      "/sitemaps/index.xml",
      "/sitemaps/pages.xml",
    ]);
    expect(pageUrls(events)).toEqual(["/", "/docs/api", "/docs/guide"]);
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });

  test("crawl ignores sitemaps and llms.txt and follows links", async () => {
    const events = await collect({ ...base(), type: "crawl" });
    for (const path of ["/sitemap.xml", "/sitemaps/index.xml", "/sitemaps/pages.xml", "/llms.txt"]) {
      expect(requests.get(path)).toBeUndefined();
    }
    // Only sitemaps and llms.txt name /docs/api; the alias page's canonical names it without a fetch.
    expect(requests.get("/docs/api")).toBeUndefined();
    expect(requests.get("/docs/hidden")).toBe(1);
    expect(pageUrls(events)).toEqual(["/", "/docs/api", "/docs/guide", "/docs/hidden", "/docs/new"]);
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });

  test("llms_txt takes its pages from llms.txt only", async () => {
    const events = await collect({ ...base(), type: "llms_txt" });
    expect(requested()).toEqual(["/docs/api", "/llms.txt", "/robots.txt"]);
    expect(pageUrls(events)).toEqual(["/docs/api"]);
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });

  test("a list type whose list is missing fetches nothing and is not complete", async () => {
    overrides = { "/llms.txt": null };
    const events = await collect({ ...base(), type: "llms_txt" });
    expect(requested()).toEqual(["/llms.txt", "/robots.txt"]);
    expect(pageUrls(events)).toEqual([]);
    expect(last(events)).toMatchObject({ kind: "done", complete: false });
  });
});

describe("crawlSite Crawl-delay", () => {
  test("robots.txt's Crawl-delay for Parley spaces the crawl's requests", async () => {
    // CrawlOptions cannot inject HostLimiter's clock, so this uses real time with a tiny delay:
    // n requests through the limiter take at least (n - 1) delays. Only a lower bound and a
    // generous upper bound are asserted.
    overrides = { "/robots.txt": "User-agent: Parley\nCrawl-delay: 0.05\nDisallow: /docs/private\n" };
    const started = Date.now();
    const events = await collect({ ...base(), type: "crawl", maxDepth: 1 });
    const elapsed = Date.now() - started;
    // Every outcome but a robots refusal (never fetched) and `done` is one task in the limiter.
    const tasks = events.filter((e) => e.kind !== "done" && !("reason" in e && e.reason === "robots_disallowed"));
    expect(tasks.length).toBeGreaterThanOrEqual(7);
    expect(elapsed).toBeGreaterThanOrEqual((tasks.length - 1) * 50 - 5);
    expect(elapsed).toBeLessThan(10_000);
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });
});

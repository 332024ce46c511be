/**
 * crawlSite against the fixture site in tests/fixtures/site/crawl, served on 127.0.0.1 by a
 * Bun.serve in this file that counts every request (so "never fetched" is checked at the server),
 * honours If-None-Match, and adds the redirects and the 404 the site needs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { cleanPages } from "../src/sources/clean-pages.ts";
import { crawlSite } from "../src/sources/crawl.ts";
import type { CrawlEvent, CrawledPage, CrawlOptions } from "../src/sources/crawl-types.ts";
import { fileFor, REDIRECTS, TYPES } from "./helpers/crawl-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const requests = new Map<string, number>();
/** When set, every /docs/ page hangs until the client gives up (the abort test). */
let hang = false;
let server: ReturnType<typeof Bun.serve>;
let origin = "";

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      if (hang && path.startsWith("/docs/")) {
        await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve()));
        return new Response("late");
      }
      const target = REDIRECTS[path];
      if (target) return new Response(null, { status: 301, headers: { location: target } });
      if (path === "/docs/feed") return Response.json({ items: [] });
      if (path === "/img/logo.png") return new Response("png", { headers: { "content-type": "image/png" } });
      const file = fileFor(path);
      if (!file) return new Response("not found", { status: 404 });
      const body = readFileSync(file, "utf8").replaceAll("{{ORIGIN}}", origin);
      const etag = `"${Bun.hash(body).toString(16)}"`;
      if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers: { etag } });
      const ext = file.split(".").pop() ?? "";
      return new Response(body, { headers: { "content-type": TYPES[ext] ?? "application/octet-stream", etag } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));
beforeEach(() => {
  requests.clear();
  hang = false;
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

const pages = (events: CrawlEvent[]) => events.filter((e): e is CrawledPage => e.kind === "page");
const last = (events: CrawlEvent[]) => events.at(-1) as Extract<CrawlEvent, { kind: "done" }>;

describe("crawlSite", () => {
  test("finds every page once, under its final or canonical URL, and stays in bounds", async () => {
    const events = await collect(base());
    const urls = pages(events)
      .map((p) => p.url.replace(origin, ""))
      .sort();
    expect(urls).toEqual(["/", "/docs/api", "/docs/guide", "/docs/hidden", "/docs/new"]);
    // Disallowed for Parley: reported, never requested. Disallowed for another agent: crawled.
    expect(requests.get("/docs/private")).toBeUndefined();
    expect(events).toContainEqual({ kind: "skipped", url: `${origin}/docs/private`, reason: "robots_disallowed" });
    expect(requests.get("/img/logo.png")).toBeUndefined();
    expect(events.some((e) => "url" in e && (e.url.includes("other.example") || e.url.startsWith("mailto")))).toBe(
      false,
    );
    // The 404 is not a page; the redirect loop fails with its reason; the crawl still completes.
    expect(events).toContainEqual({ kind: "skipped", url: `${origin}/docs/missing`, reason: "http_404" });
    expect(events).toContainEqual({ kind: "failed", url: `${origin}/docs/loop`, reason: "redirect_loop" });
    // A URL that looks like a page but is served as JSON is fetched, then skipped.
    expect(events).toContainEqual({ kind: "skipped", url: `${origin}/docs/feed`, reason: "not_html" });
    const done = last(events);
    expect(done.kind).toBe("done");
    expect(done.complete).toBe(true);
    expect(done.counts.fetched).toBe(5);
    expect(done.counts.failed).toBe(1);
    // Fragments fold into the page: the guide is requested once.
    expect(requests.get("/docs/guide")).toBe(1);
    const page = pages(events).find((p) => p.url.endsWith("/docs/guide"))!;
    expect(page.title).toBe("Guide");
    expect(page.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(page.etag).toBeTruthy();
  });

  test("a conditional re-crawl with stored validators gives not_modified", async () => {
    const first = pages(await collect(base()));
    const stored = new Map(
      first.map((p) => [p.requestedUrl, { etag: p.etag, lastModified: p.lastModified, links: p.links }]),
    );
    const events = await collect({ ...base(), validators: (url) => stored.get(url) });
    const unchanged = events.filter((e) => e.kind === "not_modified").map((e) => (e as { url: string }).url);
    expect(unchanged).toContain(`${origin}/`);
    expect(unchanged).toContain(`${origin}/docs/guide`);
    expect(unchanged).toContain(`${origin}/old`);
    expect(pages(events).filter((p) => stored.has(p.requestedUrl))).toEqual([]);
    // Links stored with the validators keep link-only pages in the crawl.
    expect(unchanged).toContain(`${origin}/docs/hidden`);
    expect(last(events)).toMatchObject({ kind: "done", complete: true });
  });

  test("maxPages cuts the crawl and marks it incomplete", async () => {
    const events = await collect({ ...base(), maxPages: 2 });
    const done = last(events);
    expect(done.complete).toBe(false);
    expect(pages(events).length).toBeLessThanOrEqual(2);
  });

  test("abort stops promptly with complete:false", async () => {
    hang = true;
    const controller = new AbortController();
    const events: CrawlEvent[] = [];
    let abortedAt = 0;
    for await (const event of crawlSite({ ...base(), requestTimeoutMs: 10_000, signal: controller.signal })) {
      events.push(event);
      if (event.kind === "page") {
        abortedAt = performance.now();
        controller.abort();
      }
    }
    expect(performance.now() - abortedAt).toBeLessThan(500);
    expect(last(events)).toMatchObject({ kind: "done", complete: false });
  });

  test("without allowPrivateNetworks, 127.0.0.1 is refused", async () => {
    const events = await collect({ ...base(), allowPrivateNetworks: false });
    expect(events[0]).toMatchObject({ kind: "failed", reason: "blocked_address" });
    expect(last(events)).toMatchObject({ kind: "done", complete: false });
    expect(requests.size).toBe(0);
  });

  test("cleanPages removes the footer paragraph two pages share", async () => {
    const crawled = pages(await collect(base()));
    const cleaned = await cleanPages(crawled, { minPages: 2, minShare: 0.3 });
    const guide = cleaned.find((p) => p.url.endsWith("/docs/guide"))!;
    expect(guide.markdown).toContain("walks through installing");
    expect(guide.markdown).not.toContain("Widgets team");
    expect(guide.contentHash).not.toBe(crawled.find((p) => p.url.endsWith("/docs/guide"))!.contentHash);
  });
});

/**
 * The network half of web sources (src/sources/fetch/): the address guard, safeFetch's redirects,
 * limits and decoding, robots.txt, and the per-host limiter. Real HTTP servers on 127.0.0.1; the
 * resolver is injected so nothing depends on this machine's DNS, and nothing sleeps: each test
 * waits on the event it is about (a request arriving, a deadline firing).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  allowPrivateNetworksFromEnv,
  checkUrl,
  createUrlGuard,
  fetchRobots,
  HostLimiter,
  isBlockedAddress,
  LimiterClosedError,
  parseRobots,
  type Resolver,
  type SafeFetchOptions,
  safeFetch,
  type UrlGuard,
} from "../src/sources/fetch/index.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const UA = "Parley/0.1.0 (+https://parley.example/docs/crawler)";
/** The test servers live on loopback, which the guard rightly refuses; most tests open it. */
const OPEN: SafeFetchOptions = { userAgent: UA, addressPolicy: { allowPrivateNetworks: true } };
const noDns: Resolver = () => Promise.reject(new Error("DNS must not be asked"));

const servers: Array<{ stop: (force?: boolean) => unknown }> = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
});

function serve(handler: (req: Request, url: URL) => Response | Promise<Response>) {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => handler(req, new URL(req.url)) });
  servers.push(server);
  return { server, base: `http://127.0.0.1:${server.port}` };
}

const redirect = (location: string, status = 302) => new Response(null, { status, headers: { location } });

describe("address guard", () => {
  test("private, loopback, link-local, metadata and other non-public addresses are blocked", () => {
    for (const ip of [
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "127.0.0.1",
      "127.255.0.9",
      "169.254.169.254",
      "0.0.0.0",
      "100.64.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "[::ffff:a9fe:a9fe]",
      "64:ff9b::a00:1",
      "2002:7f00:1::",
      "not-an-ip",
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    for (const ip of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isBlockedAddress(ip), ip).toBe(false);
    }
  });

  test("literal IPs in every spelling are refused without asking DNS", async () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://0177.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1:8080/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[fe80::1]/",
      "https://[fd00::1]/",
      "http://127.0.0.1./",
      "http://[::ffff:169.254.169.254]/",
    ]) {
      const verdict = await checkUrl(url, { resolve: noDns });
      expect(verdict.ok ? "allowed" : verdict.reason, url).toBe("blocked_address");
    }
  });

  test("a host name is refused when any of its records is private", async () => {
    const records: Record<string, string[]> = {
      localhost: ["::1", "127.0.0.1"],
      "mixed.example": ["93.184.216.34", "10.0.0.7"],
      "docs.example": ["93.184.216.34", "2606:2800:220:1::1"],
    };
    const resolve: Resolver = async (host) => records[host] ?? [];
    expect(await checkUrl("http://localhost:3000/", { resolve })).toMatchObject({
      ok: false,
      reason: "blocked_address",
    });
    expect(await checkUrl("http://localhost./", { resolve })).toMatchObject({ ok: false, reason: "blocked_address" });
    expect(await checkUrl("https://mixed.example/", { resolve })).toMatchObject({
      ok: false,
      reason: "blocked_address",
    });
    expect(await checkUrl("https://docs.example/", { resolve })).toMatchObject({ ok: true });
    expect(await checkUrl("https://nowhere.example/", { resolve })).toMatchObject({ ok: false, reason: "dns_failure" });
  });

  test("only http and https; allowPrivateNetworks opens addresses but not schemes", async () => {
    for (const url of ["ftp://docs.example/", "file:///etc/passwd", "gopher://x/", "not a url"]) {
      expect(await checkUrl(url, { resolve: noDns })).toMatchObject({ ok: false, reason: "bad_scheme" });
    }
    expect(await checkUrl("http://127.0.0.1/", { allowPrivateNetworks: true })).toMatchObject({ ok: true });
    expect(await checkUrl("file:///etc/passwd", { allowPrivateNetworks: true })).toMatchObject({ ok: false });
    expect(allowPrivateNetworksFromEnv({ SOURCES_ALLOW_PRIVATE_NETWORKS: "true" })).toBe(true);
    expect(allowPrivateNetworksFromEnv({ SOURCES_ALLOW_PRIVATE_NETWORKS: "1" })).toBe(false);
    expect(allowPrivateNetworksFromEnv({})).toBe(false);
  });
});

describe("safeFetch", () => {
  let hits = 0;
  const target = serve((req, url) => {
    hits++;
    return new Response(`hello ${url.pathname} ${req.headers.get("user-agent")}`, {
      headers: { "content-type": "text/plain" },
    });
  });

  test("a page on loopback is refused by default and no request reaches it", async () => {
    const before = hits;
    const result = await safeFetch(`${target.base}/`, { userAgent: UA });
    expect(result).toMatchObject({ ok: false, reason: "blocked_address" });
    expect(hits).toBe(before);
  });

  test("fetches a page, sends the user agent, follows redirects within the limit", async () => {
    const hop = serve((_req, url) => {
      const n = Number(url.pathname.slice(1));
      return n < 3 ? redirect(`/${n + 1}`, n === 0 ? 301 : 307) : redirect(`${target.base}/end`, 308);
    });
    const result = await safeFetch(`${hop.base}/0`, OPEN);
    if (!result.ok) throw new Error(result.reason);
    expect(result.status).toBe(200);
    expect(result.finalUrl).toBe(`${target.base}/end`);
    expect(result.bodyText).toBe(`hello /end ${UA}`);
    expect(result.contentType).toBe("text/plain");
  });

  test("a redirect from an allowed address into a private one is refused on that hop", async () => {
    const before = hits;
    const entry = serve((_req, url) =>
      redirect(url.pathname === "/meta" ? "http://169.254.169.254/latest/meta-data/" : `${target.base}/secret`),
    );
    // The entry server stands in for a public site: this guard lets its port through, nothing else.
    const real = createUrlGuard({ resolve: noDns });
    const guard: UrlGuard = async (url) =>
      url.port === String(entry.server.port) ? { ok: true, url, addresses: ["93.184.216.34"] } : real(url);
    for (const path of ["/inner", "/meta"]) {
      const result = await safeFetch(`${entry.base}${path}`, { userAgent: UA, guard });
      expect(result).toMatchObject({ ok: false, reason: "blocked_address" });
    }
    expect(hits).toBe(before);
  });

  test("a redirect out of the caller's scope stops there", async () => {
    const entry = serve(() => redirect(`${target.base}/elsewhere`));
    const inScope = (url: URL) => url.port === String(entry.server.port);
    const result = await safeFetch(`${entry.base}/`, { ...OPEN, inScope });
    expect(result).toMatchObject({ ok: false, reason: "out_of_scope", url: `${target.base}/elsewhere` });
  });

  test("redirect loops and redirect chains past the limit are reported", async () => {
    const loops = serve((_req, url) => {
      if (url.pathname === "/a") return redirect("/b");
      if (url.pathname === "/b") return redirect("/a#again");
      return redirect(`/n${Number(url.pathname.slice(2)) + 1}`);
    });
    expect(await safeFetch(`${loops.base}/a`, OPEN)).toMatchObject({ ok: false, reason: "redirect_loop" });
    expect(await safeFetch(`${loops.base}/n0`, OPEN)).toMatchObject({ ok: false, reason: "too_many_redirects" });
    expect(await safeFetch(`${loops.base}/n0`, { ...OPEN, maxRedirects: 1 })).toMatchObject({
      ok: false,
      reason: "too_many_redirects",
      url: `${loops.base}/n2`,
    });
  });

  test("a 10 MB body stops at the byte cap, declared or streamed", async () => {
    const ten = 10 * 1024 * 1024;
    const chunk = new Uint8Array(64 * 1024).fill(97);
    const big = serve((_req, url) => {
      if (url.pathname === "/declared") return new Response(new Uint8Array(ten).fill(97));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= ten) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      return new Response(stream);
    });
    for (const path of ["/declared", "/streamed"]) {
      expect(await safeFetch(`${big.base}${path}`, OPEN)).toMatchObject({ ok: false, reason: "too_large" });
    }
    const small = await safeFetch(`${big.base}/declared`, { ...OPEN, maxBytes: 11 * 1024 * 1024 });
    expect(small.ok && small.bodyText.length).toBe(ten);
  });

  test("a server that never answers, or never finishes its body, times out", async () => {
    const slow = serve((_req, url) => {
      if (url.pathname === "/silent") return new Promise<Response>(() => {});
      const stream = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode("<html>partial")),
      });
      return new Response(stream, { headers: { "content-type": "text/html" } });
    });
    const started = performance.now();
    const results = await Promise.all([
      safeFetch(`${slow.base}/silent`, { ...OPEN, requestTimeoutMs: 150 }),
      safeFetch(`${slow.base}/trickle`, { ...OPEN, requestTimeoutMs: 150 }),
      safeFetch(`${slow.base}/trickle`, { ...OPEN, totalTimeoutMs: 150 }),
    ]);
    for (const result of results) expect(result).toMatchObject({ ok: false, reason: "timeout" });
    expect(performance.now() - started).toBeLessThan(2000);

    const controller = new AbortController();
    const pending = safeFetch(`${slow.base}/silent`, { ...OPEN, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, reason: "aborted" });
  });

  test("bodies are decoded by their declared charset, and bad bytes are replaced", async () => {
    const pages: Record<string, [string, number[]]> = {
      "/latin1": ["text/html; charset=ISO-8859-1", [0x63, 0x61, 0x66, 0xe9]],
      "/meta": ["text/html", [...new TextEncoder().encode('<meta charset="windows-1252"><p>'), 0x93, 0x68, 0x69, 0x94]],
      "/broken": ["text/plain; charset=utf-8", [0x61, 0xff, 0xfe, 0x62, 0xc3]],
      "/unknown": ['text/plain; charset="x-nonsense"', [...new TextEncoder().encode("ok ✓")]],
    };
    const site = serve((_req, url) => {
      const [type, bytes] = pages[url.pathname]!;
      return new Response(new Uint8Array(bytes), { headers: { "content-type": type } });
    });
    const text = async (path: string) => {
      const result = await safeFetch(`${site.base}${path}`, OPEN);
      if (!result.ok) throw new Error(result.reason);
      return result.bodyText;
    };
    expect(await text("/latin1")).toBe("café");
    expect(await text("/meta")).toBe('<meta charset="windows-1252"><p>\u201chi\u201d');
    expect(await text("/broken")).toBe("a\uFFFD\uFFFDb\uFFFD");
    expect(await text("/unknown")).toBe("ok ✓");
  });

  test("stored validators are sent and a 304 comes back as notModified", async () => {
    const seen: Array<[string | null, string | null]> = [];
    const lastModified = "Wed, 21 Oct 2026 07:28:00 GMT";
    const site = serve((req) => {
      const inm = req.headers.get("if-none-match");
      const ims = req.headers.get("if-modified-since");
      seen.push([inm, ims]);
      if (inm === '"v1"' || ims === lastModified) return new Response(null, { status: 304, headers: { etag: '"v1"' } });
      return new Response("page", { headers: { etag: '"v1"', "last-modified": lastModified } });
    });
    const first = await safeFetch(`${site.base}/doc`, OPEN);
    expect(first).toMatchObject({ ok: true, status: 200, etag: '"v1"', lastModified, notModified: false });
    const byEtag = await safeFetch(`${site.base}/doc`, { ...OPEN, validators: { etag: '"v1"' } });
    expect(byEtag).toMatchObject({ ok: true, status: 304, notModified: true, bodyText: "" });
    const byDate = await safeFetch(`${site.base}/doc`, { ...OPEN, validators: { lastModified } });
    expect(byDate).toMatchObject({ ok: true, notModified: true });
    expect(seen).toEqual([
      [null, null],
      ['"v1"', null],
      [null, lastModified],
    ]);
  });

  test("HTTP errors are results with their status, never throws", async () => {
    const site = serve((_req, url) => new Response("no", { status: Number(url.pathname.slice(1)) }));
    expect(await safeFetch(`${site.base}/404`, OPEN)).toMatchObject({ ok: false, reason: "http_404", status: 404 });
    expect(await safeFetch(`${site.base}/503`, OPEN)).toMatchObject({ ok: false, reason: "http_503", status: 503 });
    expect(await safeFetch("mailto:someone@example.com", OPEN)).toMatchObject({ ok: false, reason: "bad_url" });
  });
});

describe("robots.txt", () => {
  const ROBOTS = [
    "User-agent: Googlebot",
    "Disallow: /",
    "",
    "User-agent: parley",
    "Disallow: /private/",
    "Allow: /private/public/",
    "Disallow: /*.pdf$",
    "Crawl-delay: 2",
    "",
    "User-agent: *",
    "Disallow: /",
    "Crawl-delay: 30",
    "",
    "Sitemap: https://docs.example/sitemap.xml",
    "Sitemap: https://docs.example/sitemap-api.xml",
  ].join("\n");

  test("Parley's group applies (case-insensitively); other agents' groups and * do not", () => {
    const rules = parseRobots("https://docs.example/robots.txt", ROBOTS);
    expect(rules.isAllowed("https://docs.example/guide/intro")).toBe(true);
    expect(rules.isAllowed("https://docs.example/private/keys")).toBe(false);
    expect(rules.isAllowed("https://docs.example/private/public/readme")).toBe(true);
    expect(rules.isAllowed("https://docs.example/manual.pdf")).toBe(false);
    expect(rules.isAllowed("https://docs.example/manual.pdf?page=2")).toBe(true);
    expect(rules.isAllowed("https://other.example/guide")).toBe(false);
    expect(rules.crawlDelaySeconds).toBe(2);
    expect(rules.sitemaps).toEqual(["https://docs.example/sitemap.xml", "https://docs.example/sitemap-api.xml"]);
  });

  test("without a Parley group the * group applies; the longest match wins, Allow on a tie", () => {
    const text = [
      "User-agent: OtherBot",
      "Disallow: /",
      "",
      "User-agent: *",
      "Disallow: /docs/",
      "Allow: /docs/guide",
      "Allow: /tmp",
      "Disallow: /tmp",
      "Disallow: /*/draft-",
      "Crawl-delay: 1.5",
    ].join("\n");
    const rules = parseRobots("https://docs.example/robots.txt", text);
    expect(rules.isAllowed("https://docs.example/docs/guide/setup")).toBe(true);
    expect(rules.isAllowed("https://docs.example/docs/api")).toBe(false);
    expect(rules.isAllowed("https://docs.example/tmp/x")).toBe(true);
    expect(rules.isAllowed("https://docs.example/blog/draft-2")).toBe(false);
    expect(rules.isAllowed("https://docs.example/")).toBe(true);
    expect(rules.crawlDelaySeconds).toBe(1.5);
    expect(rules.sitemaps).toEqual([]);
  });

  test("fetched through safeFetch: 200 applies, 404 allows all, 500 and unreachable disallow all", async () => {
    const site = serve(() => new Response(ROBOTS, { headers: { "content-type": "text/plain" } }));
    const missing = serve(() => new Response("not here", { status: 404 }));
    const broken = serve(() => new Response("oops", { status: 500 }));
    const fetched = await fetchRobots(`${site.base}/guide/`, OPEN);
    expect(fetched.source).toBe("fetched");
    expect(fetched.isAllowed(`${site.base}/private/x`)).toBe(false);
    expect(fetched.isAllowed(`${site.base}/guide/`)).toBe(true);
    expect(fetched.sitemaps).toHaveLength(2);

    const none = await fetchRobots(missing.base, OPEN);
    expect(none.source).toBe("unavailable");
    expect(none.isAllowed(`${missing.base}/anything`)).toBe(true);

    const down = await fetchRobots(broken.base, OPEN);
    expect(down.source).toBe("unreachable");
    expect(down.isAllowed(`${broken.base}/anything`)).toBe(false);

    // Loopback without allowPrivateNetworks: refused, so nothing may be crawled.
    const refused = await fetchRobots(site.base, { userAgent: UA });
    expect(refused.source).toBe("unreachable");
    expect(refused.isAllowed(`${site.base}/guide/`)).toBe(false);
  });
});

describe("per-host limiter", () => {
  test("at most two requests in flight on a host; the third starts when one ends", async () => {
    let open = 0;
    let most = 0;
    const held: Array<() => void> = [];
    let arrived = Promise.withResolvers<void>();
    const site = serve(async () => {
      open++;
      most = Math.max(most, open);
      const gate = Promise.withResolvers<void>();
      held.push(gate.resolve);
      arrived.resolve();
      await gate.promise;
      open--;
      return new Response("ok");
    });
    const limiter = new HostLimiter();
    let started = 0;
    const all = Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        limiter.schedule(`${site.base}/${n}`, () => {
          started++;
          return safeFetch(`${site.base}/${n}`, OPEN);
        }),
      ),
    );
    while (held.length < 2) {
      await arrived.promise;
      arrived = Promise.withResolvers<void>();
    }
    expect(started).toBe(2);
    expect(limiter.inFlight(site.base)).toBe(2);
    for (let released = 0; released < 5; released++) {
      while (held.length === 0) {
        await arrived.promise;
        arrived = Promise.withResolvers<void>();
      }
      held.shift()!();
    }
    const results = await all;
    expect(results.every((r) => r.ok)).toBe(true);
    expect(most).toBe(2);
    expect(limiter.inFlight(site.base)).toBe(0);
    limiter.close();
  });

  test("Crawl-delay spaces request starts on a host; other hosts are not delayed", async () => {
    let clock = 0;
    const limiter = new HostLimiter({
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    limiter.setCrawlDelay("https://docs.example/", 2);
    const starts: Array<[string, number]> = [];
    const run = (url: string) => limiter.schedule(url, async () => void starts.push([url, clock]));
    await Promise.all([run("https://docs.example/a"), run("https://docs.example/b"), run("https://docs.example/c")]);
    expect(starts.map(([, t]) => t)).toEqual([0, 2000, 4000]);
    await run("https://api.example/x");
    expect(starts.at(-1)).toEqual(["https://api.example/x", 4000]);
    limiter.close();
  });

  test("politeness off runs everything at once; close() clears pending delays", async () => {
    const off = new HostLimiter({ enabled: false });
    let started = 0;
    const gate = Promise.withResolvers<void>();
    const tasks = [1, 2, 3, 4].map(() =>
      off.schedule("https://docs.example/", async () => {
        started++;
        await gate.promise;
      }),
    );
    expect(started).toBe(4);
    gate.resolve();
    await Promise.all(tasks);

    const polite = new HostLimiter({ maxInFlightPerHost: 1 });
    polite.setCrawlDelay("https://docs.example/", 60);
    await polite.schedule("https://docs.example/1", async () => {});
    const delayed = polite.schedule("https://docs.example/2", async () => "ran");
    const queued = polite.schedule("https://docs.example/3", async () => "ran");
    const settled = Promise.allSettled([delayed, queued]);
    polite.close();
    for (const outcome of await settled) {
      expect(outcome.status === "rejected" && outcome.reason).toBeInstanceOf(LimiterClosedError);
    }
    await expect(polite.schedule("https://docs.example/4", async () => "ran")).rejects.toBeInstanceOf(
      LimiterClosedError,
    );
  });
});

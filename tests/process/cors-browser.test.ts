/**
 * CORS in a real browser: a page served from one origin calls Parley on another with a Bearer
 * key (so Chromium sends a preflight), reads the JSON and the exposed headers; a page from an
 * origin not listed is blocked. Headless Chromium via playwright-core; skipped where there is
 * no Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import { harness } from "../helpers/app.ts";
import { hasChromium, launchBrowser, warnIfNoChromium } from "../helpers/browser.ts";

setDefaultTimeout(60_000);

warnIfNoChromium("cors-browser.test.ts");

// Two page origins: one listed, one not (same host, other ports = other origins).
const page = (label: string) =>
  Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response(`<h1>${label}</h1>`, { headers: { "content-type": "text/html" } }),
  });

describe.skipIf(!hasChromium)("CORS from a browser page on another origin", () => {
  // Everything starts in beforeAll: a skipped describe's body still runs, its hooks do not.
  let browser: Browser;
  let key = "";
  let apiBase = "";
  let allowedSite: ReturnType<typeof page>;
  let otherSite: ReturnType<typeof page>;
  const stops: (() => unknown)[] = [];
  beforeAll(async () => {
    const h = await harness();
    key = await h.key("free");
    allowedSite = page("allowed");
    otherSite = page("other");
    stops.push(
      () => allowedSite.stop(true),
      () => otherSite.stop(true),
    );
    const api = createApp({
      store: h.store,
      logger: createLogger("silent"),
      options: { corsOrigins: [`http://127.0.0.1:${allowedSite.port}`] },
    }).listen({ port: 0, hostname: "127.0.0.1" });
    stops.push(() => api.stop(true));
    apiBase = `http://127.0.0.1:${api.server!.port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    for (const stop of stops) await stop();
  });

  /** Runs fetch in a page of `site`: POST /v1/chat with the key and JSON, then GET the list. */
  async function callFrom(site: { port?: number }) {
    const tab = await browser.newPage();
    try {
      await tab.goto(`http://127.0.0.1:${site.port}/`);
      return await tab.evaluate(
        async ({ apiBase, key }) => {
          try {
            const chat = await fetch(`${apiBase}/v1/chat`, {
              method: "POST",
              headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": "abc" },
              body: JSON.stringify({ message: "What is Parley?" }),
            });
            const body = await chat.json();
            const list = await fetch(`${apiBase}/v1/conversations?limit=1`, {
              headers: { Authorization: `Bearer ${key}` },
            });
            return {
              ok: true,
              status: chat.status,
              conversationId: body.conversation_id,
              remaining: list.headers.get("x-ratelimit-remaining"),
              requestId: list.headers.get("x-request-id"),
              listed: (await list.json()).data.map((c: { id: string }) => c.id),
            };
          } catch (e) {
            return { ok: false, error: String(e) };
          }
        },
        { apiBase, key },
      );
    } finally {
      await tab.close();
    }
  }

  test("a listed origin: preflight passes, the page reads JSON and the exposed headers", async () => {
    const r = await callFrom(allowedSite);
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(r.conversationId).toMatch(/^conv_/);
    expect(r.listed).toEqual([r.conversationId]);
    // Two counted requests on the free plan (20/min): preflights were not counted.
    expect(r.remaining).toBe("18");
    expect(r.requestId).toMatch(/^req_/);
  });

  test("an origin not listed is blocked by the browser", async () => {
    const r = await callFrom(otherSite);
    expect(r.ok).toBe(false);
    expect(String(r.error)).toContain("Failed to fetch");
  });
});

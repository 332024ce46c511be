/**
 * A browser's EventSource follows a reply with its resume token (`?token=`: an EventSource cannot
 * send Authorization), from a page on another origin (CORS). The connection is cut mid-reply (the
 * first answer ends after three events, as a proxy's timeout would end it): the EventSource
 * reconnects by itself with Last-Event-ID and the same URL, gets the rest live, and after the
 * terminal event its next reconnection is answered 204, which stops it for good. The page never
 * closes it: the server's 204 is what ends it. Headless Chromium via playwright-core; skipped where
 * there is none (CHROMIUM_PATH, default /usr/bin/chromium).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import { scriptedAgent } from "../helpers/agents.ts";
import { harness } from "../helpers/app.ts";
import { hasChromium, launchBrowser, warnIfNoChromium } from "../helpers/browser.ts";
import { readEvents } from "../helpers/sse.ts";

setDefaultTimeout(60_000);

warnIfNoChromium("eventsource-browser.test.ts");

const TOKENS = Array.from({ length: 60 }, (_, i) => ` w${i}`);

/** An SSE body that ends after its first `frames` events: the cut connection. */
function cutAfter(body: ReadableStream<Uint8Array>, frames: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      text += decoder.decode(value, { stream: true });
      const ends = text.split("\n\n").length - 1;
      controller.enqueue(value);
      if (ends >= frames) {
        await reader.cancel();
        controller.close();
      }
    },
  });
}

describe.skipIf(!hasChromium)("EventSource resumes a reply with its resume token", () => {
  let browser: Browser;
  const stops: (() => unknown)[] = [];
  /** Every request to the events route: what it carried and how it was answered. */
  const seen: { lastEventId: string | null; auth: boolean; token: boolean; status: number }[] = [];
  let apiBase = "";
  let pageUrl = "";
  let key = "";

  beforeAll(async () => {
    const h = await harness();
    key = await h.key();
    const site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response("<h1>app</h1>", { headers: { "content-type": "text/html" } }),
    });
    stops.push(() => site.stop(true));
    pageUrl = `http://127.0.0.1:${site.port}/`;
    const app = createApp({
      store: h.store,
      logger: createLogger("silent"),
      agent: scriptedAgent(TOKENS, { delayMs: 120 }),
      options: { corsOrigins: [`http://127.0.0.1:${site.port}`] },
    });
    stops.push(() => app.parley.close());
    const api = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      idleTimeout: 0,
      async fetch(request) {
        const res = await app.handle(request);
        const url = new URL(request.url);
        if (request.method !== "GET" || !url.pathname.endsWith("/events")) return res;
        seen.push({
          lastEventId: request.headers.get("last-event-id"),
          auth: request.headers.has("authorization"),
          token: url.searchParams.has("token"),
          status: res.status,
        });
        // The first answer is cut after three events.
        if (seen.length === 1 && res.body) return new Response(cutAfter(res.body, 3), res);
        return res;
      },
    });
    stops.push(() => api.stop(true));
    apiBase = `http://127.0.0.1:${api.port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    for (const stop of stops) await stop();
  });

  test("cut mid-reply: it reconnects with Last-Event-ID and the token, gets every event once, and stops at the 204", async () => {
    // The reply starts from a server-side client; its start event carries the token for the page.
    const started = await fetch(`${apiBase}/v1/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "go", stream: true }),
    });
    const [start] = await readEvents(started, 1);
    const { conversation_id, message_id, resume_token } = start!.data;
    const url = `${apiBase}/v1/conversations/${conversation_id}/messages/${message_id}/events?token=${encodeURIComponent(resume_token)}`;

    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    const page = await tab.evaluate(
      (url) =>
        new Promise<{ events: { id: string; type: string; content?: string }[]; errors: number; state: number }>(
          (resolve) => {
            const events: { id: string; type: string; content?: string }[] = [];
            let errors = 0;
            const source = new EventSource(url);
            source.onmessage = (e) => events.push({ id: e.lastEventId, ...JSON.parse(e.data) });
            // Not closed on `end`: the 204 answering its next reconnection is what stops it.
            source.onerror = () => {
              errors++;
              if (source.readyState === EventSource.CLOSED) resolve({ events, errors, state: source.readyState });
            };
          },
        ),
      url,
    );
    // Long enough for another reconnection, had the 204 not stopped it (Chromium retries after 3 s).
    await Bun.sleep(4_000);
    await tab.close();

    expect(page.state).toBe(2); // EventSource.CLOSED
    expect(page.events.map((e) => Number(e.id))).toEqual(page.events.map((_, i) => i + 1));
    expect(page.events[0]).toMatchObject({ type: "start", message_id });
    expect(page.events.at(-1)).toMatchObject({ type: "end", message_id, status: "completed" });
    expect(
      page.events
        .filter((e) => e.type === "token")
        .map((e) => e.content)
        .join(""),
    ).toBe(TOKENS.join(""));
    const last = String(page.events.length);
    expect(seen).toEqual([
      { lastEventId: null, auth: false, token: true, status: 200 },
      { lastEventId: "3", auth: false, token: true, status: 200 }, // mid-reply: the rest, live
      { lastEventId: last, auth: false, token: true, status: 204 }, // after `end`: stop
    ]);
  });
});

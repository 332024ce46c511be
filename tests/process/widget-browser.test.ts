/**
 * The "Ask AI" widget in a real browser, embedded by the documented snippet in a page on another
 * origin under a strict CSP (no inline styles at all), talking to a fake Parley that speaks the
 * widget's contract: sessions, SSE chat, feedback, and CORS for the page's origin only. Checks
 * the widget is styled (adopted stylesheets pass the CSP), answers stream in with their sources,
 * feedback is sent, axe finds nothing, the keyboard alone works, a 429 says when to retry, and
 * at 375 px the panel fits the screen. Skipped where there is no Chromium.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createChallenge, verifySolution } from "altcha-lib/v1";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { widgetRoutes } from "../../src/app/widget.ts";
import { widgetScript } from "../../src/runtime/widget-asset.ts";
import { hasChromium, launchBrowser, warnIfNoChromium } from "../helpers/browser.ts";
import { startWidgetHost, type WidgetHost } from "../helpers/widget-host.ts";

setDefaultTimeout(60_000);
warnIfNoChromium("widget-browser.test.ts");

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SOURCES = ["https://docs.example/guide/install", "https://docs.example/faq"];
const ANSWER = ["Parley is a **self-hostable** API", " for chat [1].\n\n", "- Install it\n- Ask [2]"];

const HMAC = "fake-parley-hmac";
const sse = (id: number, e: object) => `id: ${id}\ndata: ${JSON.stringify(e)}\n\n`;

/**
 * A fake Parley: the widget's contract, CORS for the `allowed` origins only (preflights
 * included), a key (`pk_pow`) that requires an ALTCHA proof of work, conversations kept for
 * reading back, a reply that waits for Stop when asked to "Take your time", and a record of what
 * it was sent.
 */
function fakeParley() {
  const state = {
    allowed: new Set<string>(),
    limited: false,
    chats: [] as Record<string, unknown>[],
    feedback: [] as unknown[],
    stops: [] as string[],
    proofs: 0,
  };
  const conversations = new Map<string, object[]>();
  let stopped = Promise.withResolvers<void>();
  const files = widgetRoutes(widgetScript);
  const cors = (req: Request): Record<string, string> =>
    state.allowed.has(req.headers.get("origin") ?? "")
      ? { "access-control-allow-origin": req.headers.get("origin")!, "access-control-expose-headers": "Retry-After" }
      : {};
  const json = (req: Request, status: number, body: unknown, headers: Record<string, string> = {}) =>
    Response.json(body, { status, headers: { ...cors(req), ...headers } });
  const fail = (req: Request, status: number, code: string, headers: Record<string, string> = {}) =>
    json(req, status, { error: { type: "x", code, message: code }, request_id: "req_1" }, headers);
  const message = (id: string, role: string, content: string, status = "completed", sources: string[] = []) => ({
    ...{ id, role, content, status, sources, created_at: new Date().toISOString(), usage: null, feedback: null },
  });

  async function chat(req: Request): Promise<Response> {
    const body = (await req.json()) as { message: string; conversation_id?: string };
    state.chats.push(body);
    if (state.limited) return fail(req, 429, "rate_limit_exceeded", { "retry-after": "30" });
    const n = state.chats.length;
    const [conversationId, messageId] = [body.conversation_id ?? `conv_${n}`, `msg_${n}`];
    const slow = body.message === "Take your time";
    const kept = conversations.get(conversationId) ?? [];
    kept.push(
      message(`msg_q${n}`, "user", body.message),
      message(messageId, "assistant", ANSWER.join(""), "completed", SOURCES),
    );
    conversations.set(conversationId, kept);
    const first = [{ type: "start", conversation_id: conversationId, message_id: messageId }];
    const rest = slow
      ? [{ type: "end", message_id: messageId, status: "stopped", usage: null }]
      : [
          ...ANSWER.map((content) => ({ type: "token", content })),
          { type: "sources", sources: SOURCES },
          { type: "end", message_id: messageId, status: "completed", usage: null },
        ];
    if (slow) first.push({ type: "token", content: "Thinking it over" } as never);
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        const out = (id: number, e: object) => c.enqueue(new TextEncoder().encode(sse(id, e)));
        for (const [i, e] of first.entries()) out(i + 1, e);
        if (slow) await stopped.promise;
        for (const [i, e] of rest.entries()) out(first.length + i + 1, e);
        c.close();
      },
    });
    return new Response(stream, { headers: { ...cors(req), "content-type": "text/event-stream" } });
  }

  async function session(req: Request, bearer: string): Promise<Response> {
    const body = (await req.json()) as { proof?: string };
    if (bearer === "pk_pow") {
      if (!body.proof) return fail(req, 403, "proof_of_work_required");
      if (!(await verifySolution(body.proof, HMAC))) return fail(req, 403, "permission_denied");
      state.proofs++;
    } else if (bearer !== "pk_test") return fail(req, 401, "unauthorized");
    const expires = new Date(Date.now() + 3600_000).toISOString();
    return json(req, 201, { token: "pvt_visitor", visitor_id: "vis_1", expires_at: expires });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === "/widget.js") return files.handle(req);
      if (req.method === "OPTIONS") {
        const allow = {
          "access-control-allow-methods": "GET, POST, PUT, DELETE",
          "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key, Last-Event-ID",
        };
        const ok = state.allowed.has(req.headers.get("origin") ?? "");
        return new Response(null, { status: 204, headers: ok ? { ...cors(req), ...allow } : {} });
      }
      const bearer = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
      if (pathname === "/v1/widget/sessions") return session(req, bearer);
      if (pathname === "/v1/widget/challenges" && bearer === "pk_pow")
        return json(req, 201, await createChallenge({ hmacKey: HMAC, maxnumber: 2000 }));
      if (bearer !== "pvt_visitor") return fail(req, 401, "unauthorized");
      if (pathname === "/v1/chat") return chat(req);
      const conversation = /^\/v1\/conversations\/([^/]+)$/.exec(pathname);
      if (conversation && conversations.has(conversation[1]!)) {
        const messages = conversations.get(conversation[1]!);
        const at = new Date().toISOString();
        const pagination = { has_more: false, next_cursor: null };
        const c = { id: conversation[1], title: "t", created_at: at, updated_at: at, knowledge_base_id: null };
        return json(req, 200, { ...c, messages, pagination });
      }
      if (pathname.endsWith("/stop") && req.method === "POST") {
        state.stops.push(pathname);
        stopped.resolve();
        stopped = Promise.withResolvers<void>();
        return json(req, 200, message("msg", "assistant", "Thinking it over", "stopped"));
      }
      if (pathname.endsWith("/feedback") && req.method === "PUT") {
        state.feedback.push({ path: pathname, body: await req.json() });
        return json(req, 200, { rating: "up" });
      }
      return fail(req, 404, "not_found");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, state, stop: () => server.stop(true) };
}

// No store is involved (the server is a fake): the PostgreSQL lane would run the same thing again.
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!hasChromium || onPostgres)("the widget on a page of another origin", () => {
  let browser: Browser;
  let parley: ReturnType<typeof fakeParley>;
  let host: WidgetHost;
  let powHost: WidgetHost;
  beforeAll(async () => {
    parley = fakeParley();
    host = startWidgetHost(parley.url, {
      "data-key": "pk_test",
      "data-starters": "What is Parley?|How do I install it?",
    });
    powHost = startWidgetHost(parley.url, { "data-key": "pk_pow", "data-title": "Ask the docs" });
    parley.state.allowed.add(host.origin).add(powHost.origin);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    host?.stop();
    powHost?.stop();
    parley?.stop();
  });

  /** A fresh page on the host; `problems` collects page errors and CSP refusals. */
  async function open(options: BrowserContextOptions = {}, url = host.url, title = "Ask AI") {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(url);
    await page.getByRole("button", { name: title }).waitFor();
    return { page, problems, close: () => context.close() };
  }

  const ask = async (page: Page, question: string) => {
    await page.getByRole("textbox", { name: "Ask a question" }).fill(question);
    await page.getByRole("textbox", { name: "Ask a question" }).press("Enter");
  };

  test("styled under the strict CSP; a question streams its answer, sources and feedback", async () => {
    const { page, problems, close } = await open();
    try {
      const launcher = page.getByRole("button", { name: "Ask AI" });
      expect(await launcher.evaluate((el) => getComputedStyle(el).position)).toBe("fixed");
      await launcher.click();
      await page.getByRole("dialog", { name: "Ask AI" }).waitFor();
      await page.getByRole("button", { name: "What is Parley?" }).waitFor();
      await ask(page, "What is Parley?");
      await page.getByText("self-hostable").waitFor();
      expect(await page.locator(".bot strong").textContent()).toBe("self-hostable");
      expect(await page.locator(".md li").allTextContents()).toEqual(["Install it", "Ask [2]"]);
      await page.getByRole("link", { name: "Source 2" }).waitFor();
      const hrefs = await page.locator(".sources a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      expect(hrefs).toEqual(SOURCES);
      expect(await page.locator(".sources a").first().getAttribute("rel")).toBe("noopener noreferrer");
      await page.getByRole("button", { name: "Helpful", exact: true }).click();
      await page.locator('button[aria-label="Helpful"][aria-pressed="true"]').waitFor();
      const n = parley.state.chats.length;
      expect(parley.state.feedback).toEqual([
        { path: `/v1/conversations/conv_${n}/messages/msg_${n}/feedback`, body: { rating: "up" } },
      ]);
      expect(parley.state.chats.at(-1)).toEqual({ message: "What is Parley?", stream: true });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test.each(["light", "dark"] as const)(
    "axe finds no WCAG A/AA violation, panel open with an answer (%s scheme)",
    async (colorScheme) => {
      const { page, close } = await open({ colorScheme });
      try {
        await page.getByRole("button", { name: "Ask AI" }).click();
        await ask(page, "What is Parley?");
        await page.getByRole("button", { name: "Helpful", exact: true }).waitFor();
        // Evaluated through the DevTools protocol, not a <script>: the page's CSP stays as served.
        await page.evaluate(AXE);
        const violations = await page.evaluate(async () => {
          type Result = { violations: { id: string; nodes: { target: string[] }[] }[] };
          const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<Result> } }).axe;
          const r = await axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] });
          return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        });
        expect(violations).toEqual([]);
        if (process.env.WIDGET_FAKE_SCREENSHOTS_DIR)
          await page.screenshot({ path: `${process.env.WIDGET_FAKE_SCREENSHOTS_DIR}/${colorScheme}.png` });
      } finally {
        await close();
      }
    },
  );

  /** The element focused, through the widget's shadow root: its accessible label or tag. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el?.getAttribute("aria-label") ?? el?.textContent?.trim() ?? el?.tagName.toLowerCase();
    });
  const inPanel = (page: Page) =>
    page.evaluate(() => {
      const root = document.querySelector("parley-widget")!.shadowRoot!;
      return root.querySelector("[role=dialog]")!.contains(root.activeElement);
    });

  test("keyboard only: Tab to the launcher, Enter opens, focus stays inside, Escape closes back", async () => {
    const { page, close } = await open();
    try {
      await page.keyboard.press("Tab");
      expect(await focused(page)).toBe("Ask AI");
      await page.keyboard.press("Enter");
      await page.getByRole("dialog", { name: "Ask AI" }).waitFor();
      expect(await inPanel(page)).toBe(true);
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press(i % 3 === 2 ? "Shift+Tab" : "Tab");
        expect(await inPanel(page)).toBe(true);
      }
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "hidden" });
      expect(await focused(page)).toBe("Ask AI");
    } finally {
      await close();
    }
  });

  test("a 429 says when to try again, in the alert", async () => {
    const { page, close } = await open();
    parley.state.limited = true;
    try {
      await page.getByRole("button", { name: "Ask AI" }).click();
      await ask(page, "Again?");
      await page.getByRole("alert").getByText("Too many questions right now; try again in 30 s.").waitFor();
    } finally {
      parley.state.limited = false;
      await close();
    }
  });

  test("at 375 px the open panel fills the screen, nothing past its edges", async () => {
    const { page, close } = await open({ viewport: { width: 375, height: 667 } });
    try {
      await page.getByRole("button", { name: "Ask AI" }).click();
      const box = (await page.getByRole("dialog", { name: "Ask AI" }).boundingBox())!;
      expect(box).toEqual({ x: 0, y: 0, width: 375, height: 667 });
      const send = (await page.getByRole("button", { name: "Send" }).boundingBox())!;
      expect(send.x + send.width).toBeLessThanOrEqual(375);
      expect(send.y + send.height).toBeLessThanOrEqual(667);
      if (process.env.WIDGET_FAKE_SCREENSHOTS_DIR)
        await page.screenshot({ path: `${process.env.WIDGET_FAKE_SCREENSHOTS_DIR}/375.png` });
    } finally {
      await close();
    }
  });
  test("a reload shows the visitor's conversation; the next question continues it", async () => {
    const { page, close } = await open();
    try {
      await page.getByRole("button", { name: "Ask AI" }).click();
      await ask(page, "What is Parley?");
      await page.getByRole("button", { name: "Helpful", exact: true }).waitFor();
      const conversation = parley.state.chats.length;
      await page.reload();
      await page.getByRole("button", { name: "Ask AI" }).click();
      await page.locator(".user").getByText("What is Parley?").waitFor();
      expect(await page.locator(".sources a").count()).toBe(2);
      await ask(page, "And then?");
      await page.locator(".user").getByText("And then?").waitFor();
      await page.locator(".bot .actions").nth(1).waitFor();
      expect(parley.state.chats.at(-1)).toEqual({
        message: "And then?",
        stream: true,
        conversation_id: `conv_${conversation}`,
      });
    } finally {
      await close();
    }
  });

  test("Stop ends a reply being written: POST …/stop, the answer so far kept", async () => {
    const { page, close } = await open();
    try {
      await page.getByRole("button", { name: "Ask AI" }).click();
      await ask(page, "Take your time");
      await page.getByText("Thinking it over").waitFor();
      await page.getByRole("button", { name: "Stop" }).click();
      await page.getByText("Stopped.").waitFor();
      await page.getByRole("button", { name: "Send" }).waitFor();
      expect(parley.state.stops.at(-1)).toMatch(/^\/v1\/conversations\/conv_\d+\/messages\/msg_\d+\/stop$/);
    } finally {
      await close();
    }
  });

  test("a key that requires proof of work: the widget solves the challenge and chats", async () => {
    const { page, problems, close } = await open({}, powHost.url, "Ask the docs");
    try {
      await page.getByRole("button", { name: "Ask the docs" }).click();
      await ask(page, "What is Parley?");
      await page.getByText("self-hostable").waitFor();
      expect(parley.state.proofs).toBeGreaterThanOrEqual(1);
      // The first POST's 403 (proof required) is logged by the browser; nothing else may be.
      expect(problems.filter((p) => !p.includes("status of 403"))).toEqual([]);
    } finally {
      await close();
    }
  });
});

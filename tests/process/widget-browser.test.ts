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

/** A fake Parley: the widget's contract, CORS for `allowed` only, and a record of what it was sent. */
function fakeParley() {
  const state = { allowed: "", limited: false, feedback: [] as unknown[], chats: [] as unknown[] };
  const files = widgetRoutes(widgetScript);
  const cors = (req: Request): Record<string, string> =>
    req.headers.get("origin") === state.allowed
      ? { "access-control-allow-origin": state.allowed, "access-control-expose-headers": "Retry-After, X-Request-Id" }
      : {};
  const json = (req: Request, status: number, body: unknown, headers: Record<string, string> = {}) =>
    Response.json(body, { status, headers: { ...cors(req), ...headers } });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === "/widget.js") return files.handle(req);
      if (req.method === "OPTIONS") {
        const ok = req.headers.get("origin") === state.allowed;
        const allow = {
          "access-control-allow-methods": "GET, POST, PUT, DELETE",
          "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key, Last-Event-ID",
        };
        return new Response(null, { status: 204, headers: ok ? { ...cors(req), ...allow } : {} });
      }
      const bearer = req.headers.get("authorization") ?? "";
      if (pathname === "/v1/widget/sessions" && bearer === "Bearer pk_test") {
        const expires = new Date(Date.now() + 3600_000).toISOString();
        return json(req, 201, { token: "pvt_visitor", visitor_id: "vis_1", expires_at: expires });
      }
      if (bearer !== "Bearer pvt_visitor") return json(req, 401, { error: { code: "unauthorized", message: "no" } });
      if (pathname === "/v1/chat") {
        state.chats.push(await req.json());
        if (state.limited) {
          const error = { type: "rate_limit_error", code: "rate_limit_exceeded", message: "Slow down." };
          return json(req, 429, { error, request_id: "req_1" }, { "retry-after": "30" });
        }
        const events = [
          { type: "start", conversation_id: "conv_1", message_id: `msg_${state.chats.length}` },
          ...ANSWER.map((content) => ({ type: "token", content })),
          { type: "sources", sources: SOURCES },
          { type: "end", message_id: `msg_${state.chats.length}`, status: "completed", usage: null },
        ];
        const body = events.map((e, i) => `id: ${i + 1}\ndata: ${JSON.stringify(e)}\n\n`).join("");
        return new Response(body, { headers: { ...cors(req), "content-type": "text/event-stream" } });
      }
      if (/\/feedback$/.test(pathname) && req.method === "PUT") {
        state.feedback.push({ path: pathname, body: await req.json() });
        return json(req, 200, { rating: "up" });
      }
      return json(req, 404, { error: { code: "not_found", message: "no" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, state, stop: () => server.stop(true) };
}

describe.skipIf(!hasChromium)("the widget on a page of another origin", () => {
  let browser: Browser;
  let parley: ReturnType<typeof fakeParley>;
  let host: WidgetHost;
  beforeAll(async () => {
    parley = fakeParley();
    host = startWidgetHost(parley.url, {
      "data-key": "pk_test",
      "data-starters": "What is Parley?|How do I install it?",
    });
    parley.state.allowed = host.origin;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    host?.stop();
    parley?.stop();
  });

  /** A fresh page on the host; `problems` collects page errors and CSP refusals. */
  async function open(options: BrowserContextOptions = {}) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(host.url);
    await page.getByRole("button", { name: "Ask AI" }).waitFor();
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
      expect(parley.state.feedback).toEqual([
        { path: "/v1/conversations/conv_1/messages/msg_1/feedback", body: { rating: "up" } },
      ]);
      expect(parley.state.chats[0]).toEqual({ message: "What is Parley?", stream: true });
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
        if (process.env.WIDGET_SCREENSHOTS)
          await page.screenshot({ path: `${process.env.WIDGET_SCREENSHOTS}/${colorScheme}.png` });
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
    } finally {
      await close();
    }
  });
});

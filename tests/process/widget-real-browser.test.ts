/**
 * The "Ask AI" widget in headless Chromium against the REAL Parley server (the app in process,
 * listening on a loopback port, serving /widget.js, the default retrieval agent answering from
 * documents uploaded through the API): a site's page on another origin, holding the documented
 * snippet under a strict CSP, opens the panel, asks, gets the answer streamed with its sources,
 * rates it, and the API has the rating and the conversation under the public key. The same page
 * on an origin the key does not list gets no answer, and nothing is stored. Screenshots at
 * 1280×800 and 375×740: WIDGET_SCREENSHOTS=1 rewrites docs/widget-1280.png and
 * docs/widget-375.png; otherwise they go to a temporary folder. Skipped where there is no Chromium.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { count, eq } from "drizzle-orm";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import type { ApiKey, ConversationDetail, CreatedApiKey, FeedbackList, UsageReport } from "../../src/contract/index.ts";
import { conversations, DEFAULT_KB_ID } from "../../src/db/schema.ts";
import { widgetScript } from "../../src/runtime/widget-asset.ts";
import { expectStatus, type Harness, harness, listen, type Reply, read } from "../helpers/app.ts";
import { hasChromium, launchBrowser, warnIfNoChromium } from "../helpers/browser.ts";
import { startWidgetHost, type WidgetHost } from "../helpers/widget-host.ts";

setDefaultTimeout(60_000);
warnIfNoChromium("widget-real-browser.test.ts");

/** A made-up tool's documentation: words no other document of the test store uses. */
const DOCS = [
  {
    url: "https://docs.tern.example/install",
    content: `# Installing Tern

Tern keeps a team's dotfiles in sync across machines.

Install Tern with its installer script, which puts the tern binary in ~/.local/bin:

\`\`\`sh
curl -fsSL https://get.tern.example | sh
\`\`\`

Tern runs on Linux or macOS; on Windows, use WSL.`,
  },
  {
    url: "https://docs.tern.example/configure",
    content: `# Configuring Tern

Configure Tern in tern.toml, at the root of your dotfiles repository. The remote setting names the Git remote Tern pulls from; the interval setting says how often it syncs, in minutes.`,
  },
  {
    url: "https://docs.tern.example/upgrade",
    content: `# Upgrading Tern

Run tern self-update to upgrade Tern in place; tern.toml is kept as it is. To go back to an earlier release, pass --version to tern self-update.`,
  },
];
/** Answered by two of the pages (the third is about something else): two sources, in this order. */
const QUESTION = "How do I install and configure Tern?";
const CITED = [DOCS[0]!.url, DOCS[1]!.url];
/** Sentences of those pages the answer quotes. */
const QUOTED = ["Install Tern with its installer script", "Configure Tern in tern.toml"];
const NOT_REACHED = "The assistant could not be reached. Check your connection and try again.";

const SHOTS_IN_DOCS = process.env.WIDGET_SCREENSHOTS === "1";
const DOCS_DIR = fileURLToPath(new URL("../../docs/", import.meta.url));

describe.skipIf(!hasChromium)("the widget against the real Parley server", () => {
  // Everything starts in beforeAll: a skipped describe's body still runs, its hooks do not.
  let h: Harness;
  let parley: ReturnType<typeof listen>;
  let admin = "";
  let key: CreatedApiKey;
  let host: WidgetHost;
  let otherHost: WidgetHost;
  let browser: Browser;
  let shots = DOCS_DIR;
  let tempShots: string | undefined;

  /** A call to the running server over HTTP, with the admin key. */
  async function api<T>(method: string, path: string, json?: unknown): Promise<Reply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${admin}` };
    if (json !== undefined) headers["content-type"] = "application/json";
    const body = json === undefined ? undefined : JSON.stringify(json);
    return read<T>(await fetch(`${parley.url}${path}`, { method, headers, body }));
  }

  beforeAll(async () => {
    h = await harness({ widgetScript, options: { trustProxy: 0 } });
    parley = listen(h.app);
    admin = await h.admin();
    for (const doc of DOCS) {
      const r = await api("POST", `/v1/knowledge_bases/${DEFAULT_KB_ID}/documents`, { ...doc, format: "markdown" });
      expect([200, 201], r.text).toContain(r.status);
    }
    // The host page picks its port when it starts, and its snippet holds the key: the key is made
    // with a placeholder origin, then given the page's.
    const created = await api<CreatedApiKey>("POST", "/v1/keys", {
      name: "docs",
      plan: "pro",
      role: "public",
      allowed_origins: ["http://127.0.0.1:1"],
    });
    expectStatus(created, 201);
    key = created.json;
    expect(key.secret).toMatch(/^pk_/);
    host = startWidgetHost(parley.url, { "data-key": key.secret });
    otherHost = startWidgetHost(parley.url, { "data-key": key.secret });
    const patched = await api<ApiKey>("PATCH", `/v1/keys/${key.id}`, { allowed_origins: [host.origin] });
    expectStatus(patched, 200);
    expect(patched.json.widget?.allowed_origins).toEqual([host.origin]);
    if (!SHOTS_IN_DOCS) shots = tempShots = mkdtempSync(join(tmpdir(), "parley-widget-shots-"));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    host?.stop();
    otherHost?.stop();
    parley?.stop();
    await h?.app.parley.close();
    if (tempShots) rmSync(tempShots, { recursive: true, force: true });
  });

  /** A fresh visitor (its own context: no stored session) on `url`; `problems` collects page and console errors. */
  async function open(options: BrowserContextOptions, url = host.url) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(url);
    await page.getByRole("button", { name: "Ask AI" }).waitFor();
    return { page, problems, close: () => context.close() };
  }

  /** Opens the panel and asks QUESTION with the keyboard. */
  async function ask(page: Page) {
    await page.getByRole("button", { name: "Ask AI" }).click();
    await page.getByRole("dialog", { name: "Ask AI" }).waitFor();
    const box = page.getByRole("textbox", { name: "Ask a question" });
    await box.fill(QUESTION);
    await box.press("Enter");
  }

  /** Asks, and waits for the answer streamed from the server with its sources; the sources' hrefs. */
  async function askForAnswer(page: Page): Promise<string[]> {
    const chat = page.waitForResponse((r) => r.url() === `${parley.url}/v1/chat` && r.request().method() === "POST");
    await ask(page);
    const res = await chat;
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("text/event-stream");
    for (const text of QUOTED) await page.locator(".bot .md").getByText(text).waitFor();
    await page.getByRole("link", { name: "docs.tern.example/install" }).waitFor();
    await page.getByRole("link", { name: "docs.tern.example/configure" }).waitFor();
    // The reply has ended: its rating buttons are shown.
    await page.getByRole("button", { name: "Helpful", exact: true }).waitFor();
    return page.locator(".sources a").evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
  }

  const screenshot = async (page: Page, name: string) => {
    const path = join(shots, name);
    await page.screenshot({ path });
    expect(statSync(path).size).toBeLessThan(300_000);
  };

  const conversationsOfKey = async () => {
    const [row] = await h.store.db.select({ n: count() }).from(conversations).where(eq(conversations.keyId, key.id));
    return row!.n;
  };

  test("an allowed page: the answer streams in with its sources; Helpful is stored under the key", async () => {
    const { page, problems, close } = await open({ viewport: { width: 1280, height: 800 } });
    try {
      const hrefs = await askForAnswer(page);
      expect(hrefs).toEqual(CITED);
      // The citations [1] and [2] link to them too.
      expect(await page.getByRole("link", { name: "Source 2" }).getAttribute("href")).toBe(CITED[1]!);
      await page.getByRole("button", { name: "Helpful", exact: true }).click();
      await page.locator('button[aria-label="Helpful"][aria-pressed="true"]').waitFor();
      await screenshot(page, "widget-1280.png");

      // The API: the rating, on the reply the widget showed, given through the public key.
      const feedback = await api<FeedbackList>("GET", `/v1/feedback?key_id=${key.id}`);
      expectStatus(feedback, 200);
      expect(feedback.json.data).toHaveLength(1);
      const rated = feedback.json.data[0]!;
      expect(rated).toMatchObject({ key_id: key.id, rating: "up", question: QUESTION, sources: hrefs });
      for (const text of QUOTED) expect(rated.answer).toContain(text);
      // The widget's own record of its conversation (localStorage) is that conversation.
      const stored = await page.evaluate((k) => JSON.parse(localStorage.getItem(`parley-widget:${k}`)!), key.secret);
      expect(stored.conversation_id).toBe(rated.conversation_id);
      const conversation = await api<ConversationDetail>("GET", `/v1/conversations/${rated.conversation_id}`);
      expectStatus(conversation, 200);
      expect(conversation.json.messages.map((m) => [m.role, m.status])).toEqual([
        ["user", "completed"],
        ["assistant", "completed"],
      ]);
      const reply = conversation.json.messages[1]!;
      expect(reply.id).toBe(rated.message_id);
      expect(reply.sources).toEqual(hrefs);
      expect(reply.feedback?.rating).toBe("up");
      expect(await conversationsOfKey()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test("on a phone (375×740) the answer and its sources fill the screen", async () => {
    const { page, problems, close } = await open({ viewport: { width: 375, height: 740 }, isMobile: true });
    try {
      expect(await askForAnswer(page)).toEqual(CITED);
      const box = (await page.getByRole("dialog", { name: "Ask AI" }).boundingBox())!;
      expect(box).toEqual({ x: 0, y: 0, width: 375, height: 740 });
      await screenshot(page, "widget-375.png");
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test("a page on an origin the key does not list gets no answer, and nothing is stored", async () => {
    const usage = async () => {
      const r = await api<UsageReport>("GET", `/v1/usage?key_id=${key.id}`);
      expectStatus(r, 200);
      return r.json.data.map((k) => k.totals);
    };
    const [conversationsBefore, usageBefore] = [await conversationsOfKey(), await usage()];
    const { page, problems, close } = await open({ viewport: { width: 1280, height: 800 } }, otherHost.url);
    try {
      await ask(page);
      // The browser refuses the cross-origin preflight (no public key lists this origin): to the
      // widget it is a request that never got through.
      await page.getByRole("alert").getByText(NOT_REACHED).waitFor();
      await page.locator(".bot").getByText("No answer.").waitFor();
      await page.getByRole("button", { name: "Send" }).waitFor();
      expect(await page.locator(".sources a").count()).toBe(0);
      expect(problems.some((p) => p.includes("CORS policy"))).toBe(true);
      expect(await conversationsOfKey()).toBe(conversationsBefore);
      expect(await usage()).toEqual(usageBefore);
    } finally {
      await close();
    }
  });
});

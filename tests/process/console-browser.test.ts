/**
 * The console in headless Chromium, at 1280 px and 375 px, against a real server whose model is a
 * loopback OpenAI-compatible provider: every flow (sign-in, playground with hostile Markdown,
 * citations, stop from another tab, resume after reload, conversations, feedback, knowledge,
 * keys, usage), each page with no console error, no request to another origin and no serious or
 * critical axe-core violation. Skips cleanly without /usr/bin/chromium (.ci/run installs it).
 * CONSOLE_SCREENSHOTS=1 rewrites docs/console/*.png; CONSOLE_TRANSCRIPT=<file> appends the transcript.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { ingestDocuments } from "../../src/knowledge/ingest.ts";
import {
  axe,
  CHROMIUM,
  launchBrowser,
  note,
  openPage,
  screenshot,
  signIn,
  startConsoleServer,
  type Watched,
  watchTop,
} from "../helpers/console-browser.ts";

setDefaultTimeout(120_000);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`console-browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

const HOSTILE = [
  "Parley **cites** its sources [1].\n\n",
  '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>',
  " [click](javascript:window.__pwned=3) <b onmouseover=window.__pwned=4>bold</b>\n\n- one\n- two",
];
const DOC_URL = "https://docs.example.com/hostile";

describe.skipIf(!hasChromium)("console in Chromium", () => {
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let browser: Browser;
  const opened: Watched[] = [];
  beforeAll(async () => {
    server = await startConsoleServer();
    // A hostile document: its text reaches passages, search results and the model's context.
    await ingestDocuments(server.store.db, [
      {
        url: DOC_URL,
        title: 'Hostile <img src=x onerror="window.__pwned=5">',
        content: `# Hostile\n\nParley cites sources. <script>window.__pwned=6</script><img src=x onerror="window.__pwned=7">`,
      },
    ]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function page(width: number, key: string): Promise<Page> {
    const w = await openPage(browser, server.url, width);
    opened.push(w);
    await signIn(w.page, server.url, key);
    return w.page;
  }
  /** Axe and problems for the page as it is; a screenshot at `name` when asked. */
  async function check(p: Page, label: string, shot?: string) {
    const violations = await axe(p);
    const w = opened.find((o) => o.page === p)!;
    // Nothing wider than the viewport: no sideways scrolling of the page at 375 px.
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const wide = await p.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 3)
        .map((e) => `${e.tagName}.${e.className}`),
    );
    expect({ label, overflow: overflow > 0 ? overflow : 0, wide: overflow > 0 ? wide : [] }).toEqual({
      label,
      overflow: 0,
      wide: [],
    });
    note(`${label}: axe serious/critical ${violations.length}, console errors ${w.problems.length}`);
    if (shot) await screenshot(p, shot);
    expect({ label, violations, problems: w.problems }).toEqual({ label, violations: [], problems: [] });
  }
  const pwned = (p: Page) => p.evaluate(() => (window as any).__pwned ?? null);

  for (const width of [1280, 375]) {
    describe(`${width} px`, () => {
      test("sign-in: the key stays in sessionStorage; a chat key sees only the playground; a bad key is refused", async () => {
        const w = await openPage(browser, server.url, width);
        opened.push(w);
        await w.page.goto(`${server.url}/console`);
        await check(w.page, `${width} sign-in page`, width === 1280 ? "sign-in.png" : undefined);
        await w.page.getByLabel("API key").fill("prl_not-a-real-key");
        await w.page.getByRole("button", { name: "Sign in" }).click();
        await w.page.getByRole("alert").waitFor();
        w.problems.length = 0; // the refused key's 401 is the browser's own console line
        await signIn(w.page, server.url, server.chatKey);
        const nav = await w.page.getByRole("navigation").getByRole("link").allTextContents();
        expect(nav).toEqual(["Playground"]);
        expect(w.page.url()).not.toContain(server.chatKey);
        expect(await w.context.cookies()).toEqual([]);
        expect(await w.page.evaluate(() => sessionStorage.getItem("parley.console.key"))).toBe(server.chatKey);
        note(
          `${width} sign-in: chat key → nav ${JSON.stringify(nav)}; key in sessionStorage only, no cookie, not in URL`,
        );
        const admin = await page(width, server.adminKey);
        const adminNav = await admin.getByRole("navigation").getByRole("link").allTextContents();
        note(`${width} sign-in: admin key → nav ${JSON.stringify(adminNav)}`);
        await check(w.page, `${width} playground (chat key)`);
      });

      test("playground: streamed Markdown is safe against hostile output and documents; [n] links to its source", async () => {
        const p = await page(width, server.chatKey);
        server.fake.script.push({ tokens: HOSTILE, tokenDelayMs: 20 });
        await p.getByLabel("Message").fill("What does Parley cite? Hostile please");
        await p.keyboard.press("Enter");
        const answer = p.locator(".msg.assistant").last();
        await answer.getByRole("button", { name: "Good answer" }).waitFor();
        const md = answer.locator(".md");
        expect(await md.locator("img, script, b, [onerror], [onmouseover]").count()).toBe(0);
        expect(await md.textContent()).toContain('<img src=x onerror="window.__pwned=1">'); // as written, not emphasis
        expect(await md.locator("strong").first().textContent()).toBe("cites");
        expect(await md.locator("li").count()).toBe(2);
        expect(await md.locator('a[href^="javascript"]').count()).toBe(0);
        const cite = md.locator("a.cite");
        expect(await cite.getAttribute("href")).toBe(DOC_URL);
        expect(await answer.locator(".sources a").first().getAttribute("href")).toBe(DOC_URL);
        expect(await pwned(p)).toBeNull();
        note(
          `${width} playground: hostile tokens rendered as text (no img/script/b), [1] → ${DOC_URL}, window.__pwned unset`,
        );
        await check(p, `${width} playground`, width === 1280 ? "playground.png" : "playground-375.png");
      });

      test("keyboard only: reach the composer, send, rate the answer, sign out", async () => {
        const p = await page(width, server.chatKey); // signIn itself uses only Tab, typing and Enter
        /** Presses Tab until `accessibleName` has focus (at most 40 times); the number of presses. */
        const tabTo = async (test: () => Promise<boolean>) => {
          for (let i = 1; i <= 40; i++) {
            await p.keyboard.press("Tab");
            if (await test()) return i;
          }
          throw new Error("never reached by Tab");
        };
        const focused = (sel: string) => () => p.evaluate((s) => document.activeElement?.matches(s) ?? false, sel);
        const tabs = await tabTo(focused("textarea#message"));
        await p.keyboard.type("Keyboard question");
        await p.keyboard.press("Enter");
        const answer = p.locator(".msg.assistant").last();
        await answer.getByRole("button", { name: "Good answer" }).waitFor();
        await tabTo(
          async () => (await p.evaluate(() => document.activeElement?.textContent?.trim())) === "Good answer",
        );
        await p.keyboard.press("Space");
        await answer.locator('button[aria-pressed="true"]', { hasText: "Good answer" }).waitFor();
        const focusVisible = await p.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
        await tabTo(async () => (await p.evaluate(() => document.activeElement?.textContent)) === "Sign out");
        await p.keyboard.press("Enter");
        await p.getByLabel("API key").waitFor();
        note(
          `${width} keyboard: composer reached in ${tabs} Tabs, sent with Enter, rated with Space (focus outline ${focusVisible}), signed out with Enter`,
        );
      });

      test("playground: an admin picks the knowledge base a new conversation answers from", async () => {
        const p = await page(width, server.adminKey);
        const picker = p.getByLabel("Knowledge base");
        await picker.locator("option", { hasText: /^default$/ }).waitFor({ state: "attached" });
        await picker.selectOption({ label: "default" });
        const sent: string[] = [];
        p.on("request", (r) => r.url().endsWith("/v1/chat") && sent.push(r.postData() ?? ""));
        await p.getByLabel("Message").fill("Which sources does Parley cite?");
        await p.keyboard.press("Enter");
        await p.locator(".msg.assistant").last().getByRole("button", { name: "Good answer" }).waitFor();
        const body = JSON.parse(sent[0]!);
        expect(body.knowledge_base_id).toMatch(/^kb_/);
        note(
          `${width} playground: knowledge base "default" picked → chat sent with knowledge_base_id ${body.knowledge_base_id}`,
        );
        await check(p, `${width} playground (admin key, picker)`);
      });

      test("stop: a reply running in one tab is stopped from another", async () => {
        const a = await page(width, server.chatKey);
        server.fake.script.push({ tokens: Array.from({ length: 200 }, (_, i) => `w${i} `), tokenDelayMs: 100 });
        await a.getByLabel("Message").fill("A long answer, please");
        await a.getByRole("button", { name: "Send" }).click();
        await a.getByRole("button", { name: "Stop" }).waitFor();
        await a.locator(".msg.assistant .md").last().getByText("w2").waitFor();
        // Tab B: the same key signed in anew (sessionStorage is per tab), the conversation opened from the list.
        const b = await page(width, server.chatKey);
        await b.getByRole("button", { name: "A long answer, please" }).first().click();
        await b.getByRole("button", { name: "Stop" }).click();
        await b.locator(".msg.assistant .status").getByText("stopped").waitFor();
        await a.locator(".msg.assistant .status").getByText("stopped").waitFor();
        expect(await a.getByRole("button", { name: "Send" }).isVisible()).toBe(true);
        note(`${width} stop: tab B's Stop ended tab A's reply (both show "stopped")`);
      });

      test("resume: reloading mid-reply continues through Last-Event-ID to the whole stored reply", async () => {
        const p = await page(width, server.chatKey);
        const tokens = Array.from({ length: 40 }, (_, i) => `t${i} `);
        server.fake.script.push({ tokens, tokenDelayMs: 60 });
        await p.getByLabel("Message").fill("Resume me");
        await p.getByRole("button", { name: "Send" }).click();
        await p.locator(".msg.assistant .md").last().getByText("t5").waitFor();
        const resumed: string[] = [];
        p.on("request", (r) => r.url().includes("/events") && resumed.push(r.headers()["last-event-id"] ?? ""));
        await p.reload();
        await p.locator(".msg.assistant .md").last().getByText("t39").waitFor({ timeout: 30_000 });
        await p.getByRole("button", { name: "Send" }).waitFor();
        const text = (await p.locator(".msg.assistant .md").last().textContent())!.replace(/\s+/g, " ").trim();
        expect(text).toBe(tokens.join("").trim());
        expect(resumed.length).toBeGreaterThan(0);
        expect(Number(resumed[0])).toBeGreaterThan(1);
        note(
          `${width} resume: after reload the events endpoint was asked with Last-Event-ID ${resumed[0]}; text whole (40 tokens, none twice)`,
        );
      });

      test("conversations: infinite scroll over cursor pages, history, delete", async () => {
        const fresh = await startConsoleServerKeyOnly();
        for (let i = 0; i < 23; i++) {
          const res = await fetch(`${server.url}/v1/chat`, {
            method: "POST",
            headers: { authorization: `Bearer ${fresh}`, "content-type": "application/json" },
            body: JSON.stringify({ message: `Question number ${i}` }),
          });
          expect(res.status).toBe(200);
        }
        const p = await page(width, fresh);
        const items = p.locator(".conversations li button.link", { hasText: "Question number" });
        await items.nth(19).waitFor();
        await p.locator(".conversations").evaluate((el) => el.scrollTo(0, el.scrollHeight));
        await items.nth(22).waitFor();
        expect(await items.count()).toBe(23);
        await items.first().click();
        await p.locator(".msg.user").getByText("Question number 22").waitFor();
        expect(await p.locator(".msg.assistant").count()).toBe(1);
        await p.getByRole("button", { name: "Delete Question number 22" }).click();
        await p.getByRole("button", { name: "Question number 22", exact: true }).waitFor({ state: "detached" });
        const list = await (
          await fetch(`${server.url}/v1/conversations?limit=100`, { headers: { authorization: `Bearer ${fresh}` } })
        ).json();
        expect(list.data.length).toBe(22);
        note(
          `${width} conversations: 23 listed over 2 pages by scrolling, one opened with its history, one deleted (22 left)`,
        );
      });

      test("feedback: thumbs down with a comment is stored", async () => {
        const p = await page(width, server.chatKey);
        const tops = await watchTop(p, ".msg.assistant .feedback");
        await p.getByLabel("Message").fill("Rate me");
        await p.keyboard.press("Enter");
        const answer = p.locator(".msg.assistant").last();
        await answer.getByRole("button", { name: "Bad answer" }).click();
        await answer.getByLabel("Comment on this answer").fill("Missed the point");
        await answer.getByRole("button", { name: "Save" }).click();
        await answer.locator("q").getByText("Missed the point").waitFor();
        expect(await answer.getByRole("button", { name: "Bad answer" }).getAttribute("aria-pressed")).toBe("true");
        const auth = { headers: { authorization: `Bearer ${server.chatKey}` } };
        const [newest] = (await (await fetch(`${server.url}/v1/conversations?limit=1`, auth)).json()).data;
        const conv = await (await fetch(`${server.url}/v1/conversations/${newest.id}`, auth)).json();
        expect(conv.messages.at(-1).feedback).toMatchObject({ rating: "down", comment: "Missed the point" });
        // Settled (the list heads with it, its knowledge base named): the buttons never moved.
        await p.locator(".conversations").getByText("Rate me").first().waitFor();
        await p.locator(".kb-line", { hasText: "Knowledge base: default" }).waitFor();
        expect(await tops()).toHaveLength(1);
        note(`${width} feedback: thumbs down + comment saved`);
        await check(p, `${width} playground with feedback`);
      });

      test("knowledge: create a base, drop files (progress, per-file results), filter, delete, search with scores", async () => {
        const p = await page(width, server.adminKey);
        await p.getByRole("link", { name: "Knowledge" }).click();
        const name = `Handbook ${width}`;
        await p.getByLabel("New knowledge base").fill(name);
        await p.getByRole("button", { name: "Create" }).click();
        await p.getByRole("heading", { name: `Documents in ${name}` }).waitFor();
        // Drag and drop: a drop event whose DataTransfer holds two files, as a browser makes it.
        const drop = await p.evaluateHandle(() => {
          const dt = new DataTransfer();
          const md =
            "---\nurl: https://handbook.example.com/leave\n---\n# Leave\n\nStaff get 30 days of paid leave a year.";
          dt.items.add(new File([md], "leave.md", { type: "text/markdown" }));
          dt.items.add(new File(["%PDF-1.4"], "scan.pdf", { type: "application/pdf" }));
          return dt;
        });
        await p.locator(".dropzone").dispatchEvent("drop", { dataTransfer: drop });
        const results = p.getByRole("list", { name: "Upload results" });
        await results.waitFor();
        expect(await p.locator("progress").getAttribute("value")).toBe("100");
        const lines = await results.getByRole("listitem").allTextContents();
        expect(lines.some((l) => l.startsWith("leave.md") && l.includes("created"))).toBe(true);
        expect(lines.some((l) => l.startsWith("scan.pdf") && l.includes("failed"))).toBe(true);
        await p.getByRole("cell", { name: "https://handbook.example.com/leave" }).waitFor();
        await p.getByLabel("Filter by URL prefix").fill("https://nowhere.example.com/");
        await p.getByRole("cell", { name: "https://handbook.example.com/leave" }).waitFor({ state: "detached" });
        await p.getByLabel("Filter by URL prefix").fill("");
        await p.getByRole("cell", { name: "https://handbook.example.com/leave" }).waitFor();
        await p.getByLabel("Query").fill("how many days of paid leave");
        await p.getByRole("button", { name: "Search" }).click();
        const score = await p.locator(".hits .score").first().textContent();
        expect(score).toMatch(/^score \d+\.\d{3}$/);
        note(
          `${width} knowledge: "${name}" created; drop of 2 files → ${JSON.stringify(lines)}; filter hides/shows; search → ${score}`,
        );
        await check(p, `${width} knowledge`, width === 1280 ? "knowledge.png" : undefined);
        await p.getByRole("button", { name: "Delete Leave" }).click();
        await p.getByRole("cell", { name: "https://handbook.example.com/leave" }).waitFor({ state: "detached" });
        await p.getByRole("button", { name: `Delete ${name}` }).click();
        await p.getByRole("heading", { name: `Documents in ${name}` }).waitFor({ state: "detached" });
        await p.getByRole("cell", { name, exact: true }).waitFor({ state: "detached" });
        note(`${width} knowledge: document deleted, knowledge base deleted`);
        // The hostile document (in the default knowledge base) in the search tester: text, never markup.
        await p.getByRole("button", { name: "Open default" }).click();
        await p.getByLabel("Query").fill("Parley cites sources hostile");
        await p.getByRole("button", { name: "Search" }).click();
        await p.locator(".hits li").first().waitFor();
        expect(await p.locator(".hits").textContent()).toContain("<script>");
        expect(await p.locator(".hits img, .hits script").count()).toBe(0);
        expect(await pwned(p)).toBeNull();
        note(
          `${width} knowledge: the hostile document's passage shows in the search tester as text (no img/script), window.__pwned unset`,
        );
      });

      test("keys: create (secret once, copy), list with plan and limits, change plan and limits, revoke", async () => {
        const p = await page(width, server.adminKey);
        await p.getByRole("link", { name: "Keys" }).click();
        const name = `web ${width}`;
        await p.getByLabel("Name").fill(name);
        await p.getByLabel("Plan").first().selectOption("pro");
        await p.getByRole("button", { name: "Create key" }).click();
        const secret = (await p.locator("#new-secret").textContent())!;
        expect(secret).toMatch(/^prl_/);
        await p.getByRole("button", { name: "Copy" }).click();
        await p.getByRole("button", { name: "Copied" }).waitFor();
        expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(secret);
        const works = await fetch(`${server.url}/v1/conversations`, { headers: { authorization: `Bearer ${secret}` } });
        expect(works.status).toBe(200);
        await check(p, `${width} keys`, width === 1280 ? "keys.png" : undefined);
        await p.getByRole("button", { name: "Done" }).click();
        expect(await p.getByText(secret).count()).toBe(0); // shown once
        const row = p.getByRole("row", { name: new RegExp(`^${name} `) });
        expect(await row.textContent()).toContain("100/min, 10000/day (plan)");
        await row.getByRole("button", { name: `Edit ${name}` }).click();
        const form = p.getByRole("form", { name: `Edit ${name}` });
        await form.getByLabel("Plan").selectOption("enterprise");
        await form.getByLabel("Requests per minute").fill("500");
        await form.getByLabel("Requests per day").fill("50000");
        await form.getByRole("button", { name: "Save" }).click();
        await row.getByText("500/min, 50000/day").waitFor();
        await row.getByRole("button", { name: `Revoke ${name}` }).click();
        await row.getByText(/revoked/).waitFor();
        const refused = await fetch(`${server.url}/v1/conversations`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(refused.status).toBe(401);
        note(
          `${width} keys: created (secret shown once, copied to the clipboard, works), plan pro → enterprise 500/min 50000/day, revoked (401 after)`,
        );
      });

      test("usage and feedback: per-day charts per key, down-voted answers with question and sources", async () => {
        // A down-voted answer of its own, over the API (the page must list it with its question).
        const headers = { authorization: `Bearer ${server.chatKey}`, "content-type": "application/json" };
        const question = `Usage question at ${width} px`;
        const chat = await fetch(`${server.url}/v1/chat`, {
          method: "POST",
          headers,
          body: JSON.stringify({ message: question }),
        });
        const reply = await chat.json();
        expect(chat.status).toBe(200);
        const rated = await fetch(
          `${server.url}/v1/conversations/${reply.conversation_id}/messages/${reply.id}/feedback`,
          {
            method: "PUT",
            headers,
            body: JSON.stringify({ rating: "down", comment: "Too vague" }),
          },
        );
        expect(rated.status).toBe(200);
        const p = await page(width, server.adminKey);
        await p.getByRole("link", { name: "Usage and feedback" }).click();
        // A day without use draws a bar of height 0 (hidden to Playwright): wait for a drawn one.
        await p.locator("svg rect.bar:not([height='0'])").first().waitFor();
        const charts = await p.getByRole("img").count();
        const down = p.locator(".downs > li", { hasText: question });
        await down.waitFor();
        expect(await down.textContent()).toContain("Too vague");
        note(
          `${width} usage: ${charts} charts (requests and tokens per key); down-voted answers listed with their question`,
        );
        await check(p, `${width} usage and feedback`, width === 1280 ? "usage.png" : undefined);
      });

      async function startConsoleServerKeyOnly() {
        const { createKey } = await import("../../src/auth/keys-admin.ts");
        return (
          await createKey(server.store.db, {
            name: `lister ${width}`,
            plan: "enterprise",
            rpm: 100_000,
            rpd: 1_000_000,
          })
        ).secret;
      }
    });
  }
});

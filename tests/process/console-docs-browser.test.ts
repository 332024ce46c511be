/**
 * A docs team's first hour in the console, in headless Chromium: a knowledge base made with a
 * description and a language, a document opened to its text and passages, sources shown by title,
 * the knowledge base of each conversation, tables that reflow on a 375 px phone, questions asked
 * counted apart from API requests, and rated answers with their date, key, conversation and
 * Markdown. CONSOLE_SCREENSHOTS=1 writes docs/console/document(-375).png and keys-table(-375).png.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import {
  brokenWords,
  CHROMIUM,
  expectClean,
  launchBrowser,
  note,
  openPage,
  screenshot,
  signIn,
  startConsoleServer,
  type Watched,
} from "../helpers/console-browser.ts";

setDefaultTimeout(120_000);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`console-docs-browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

const LEAVE =
  "# Leave policy\n\nStaff get thirty days of paid leave a year.\n\n## Carry-over\n\nUp to five unused days carry over.";

describe.skipIf(!hasChromium)("the console for a docs team", () => {
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let browser: Browser;
  const run = crypto.randomUUID().slice(0, 8);
  /** One request as `key` to the server. */
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.status === 204 ? null : res.json();
  };
  let handbook: { id: string; name: string };
  /** The knowledge bases made here, deleted at the end (the names are the screenshots'). */
  const made: string[] = [];
  beforeAll(async () => {
    server = await startConsoleServer();
    handbook = await call(server.adminKey, "POST", "/v1/knowledge_bases", { name: "Staff handbook" });
    made.push(handbook.id);
    await call(server.adminKey, "POST", `/v1/knowledge_bases/${handbook.id}/documents`, {
      url: "https://handbook.example.com/leave",
      content: LEAVE,
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const id of made) await call(server.adminKey, "DELETE", `/v1/knowledge_bases/${id}`).catch(() => {});
    await browser?.close();
    await server?.close();
  });

  async function admin(width: number): Promise<Watched> {
    const w = await openPage(browser, server.url, width);
    await signIn(w.page, server.url, server.adminKey);
    return w;
  }
  const knowledge = (p: Page) => p.getByRole("navigation").getByRole("link", { name: "Knowledge" }).click();

  for (const width of [1280, 375]) {
    test(`${width} px: a knowledge base with a description and a language; a document opens to its text and passages`, async () => {
      const w = await admin(width);
      const { page } = w;
      await knowledge(page);
      const name = width === 1280 ? "Team guides" : "Team guides (phone)";
      const sent: string[] = [];
      page.on(
        "request",
        (r) => r.method() === "POST" && r.url().endsWith("/v1/knowledge_bases") && sent.push(r.postData()!),
      );
      await page.getByLabel("New knowledge base").fill(name);
      await page.getByLabel("Description").fill("How-to guides for the docs team");
      await page.getByLabel("Language").selectOption("german");
      await page.getByRole("button", { name: "Create", exact: true }).click();
      await page.getByRole("heading", { name: `Documents in ${name}` }).waitFor();
      expect(JSON.parse(sent[0]!)).toEqual({
        name,
        description: "How-to guides for the docs team",
        language: "german",
      });
      const row = page.getByRole("row", { name: new RegExp(`^${name.replace(/[()]/g, "\\$&")} `) });
      await row.waitFor();
      expect(await row.getByRole("cell").allInnerTexts()).toEqual(
        expect.arrayContaining([expect.stringContaining("How-to guides"), expect.stringContaining("german")]),
      );
      const kbId = decodeURIComponent(page.url().split("#/knowledge/")[1]!);
      made.push(kbId);
      const doc = await call(server.adminKey, "POST", `/v1/knowledge_bases/${kbId}/documents`, {
        url: "https://guides.example.com/urlaub",
        title: "Urlaub planen",
        content:
          "# Urlaub planen\n\nUrlaub wird im Kalender eingetragen.\n\n## Vertretung\n\nJede Abwesenheit braucht eine Vertretung.",
      });
      await page.reload();
      await page.getByRole("link", { name: "Urlaub planen" }).click();
      await page.getByRole("heading", { name: "Urlaub planen", level: 1 }).waitFor();
      await page.locator(".passages li").first().waitFor();
      expect(await page.locator(".passages li").count()).toBe(doc.passage_count);
      expect(await page.getByRole("heading", { name: `Passages (${doc.passage_count})` }).count()).toBe(1);
      expect(await page.locator(".passages").textContent()).toContain("Jede Abwesenheit braucht eine Vertretung.");
      expect(await page.locator(".passages strong").allTextContents()).toContain("Vertretung");
      expect(await page.locator("pre.text").textContent()).toBe(doc.content);
      expect(await page.locator(".facts").textContent()).toContain(name);
      await expectClean(w, `${width} document view`);
      await screenshot(page, width === 1280 ? "document.png" : "document-375.png");
      await page.getByRole("link", { name: `← Documents in ${name}` }).click();
      await page.getByRole("heading", { name: `Documents in ${name}` }).waitFor();
      note(
        `${width} knowledge: "${name}" made with description and language; its document shows ${doc.passage_count} passages and its text`,
      );
    });

    test(`${width} px: the Keys and Knowledge tables reflow, no word broken, nothing wider than the screen`, async () => {
      const w = await admin(width);
      await w.page.getByRole("link", { name: "Keys" }).click();
      await w.page
        .getByRole("row", { name: /^console admin / })
        .first()
        .waitFor();
      expect({ page: "keys", broken: await brokenWords(w.page) }).toEqual({ page: "keys", broken: [] });
      await expectClean(w, `${width} keys table`);
      await w.page.locator("#keys-heading").scrollIntoViewIfNeeded();
      await w.page.evaluate(() => document.getElementById("keys-heading")!.scrollIntoView());
      await screenshot(w.page, width === 1280 ? "keys-table.png" : "keys-table-375.png");
      // Names other users give: 100 characters with no space, a hyphenated one, 300 characters
      // of description with no space (a shared store holds such; they must not widen the table).
      const stamp = crypto.randomUUID().slice(0, 8);
      const odd = [
        await call(server.adminKey, "POST", "/v1/knowledge_bases", {
          name: `${stamp}${"x".repeat(92)}`,
          description: "b".repeat(300),
        }),
        await call(server.adminKey, "POST", "/v1/knowledge_bases", { name: `herd-${stamp}` }),
      ];
      try {
        await knowledge(w.page);
        await w.page.getByRole("row", { name: /^Staff handbook / }).waitFor();
        expect({ page: "knowledge", broken: await brokenWords(w.page) }).toEqual({ page: "knowledge", broken: [] });
        await expectClean(w, `${width} knowledge table`);
      } finally {
        for (const kb of odd) await call(server.adminKey, "DELETE", `/v1/knowledge_bases/${kb.id}`).catch(() => {});
      }
      note(`${width} tables: Keys and Knowledge cells keep their words whole, no sideways scrolling`);
    });
  }

  test("playground: sources show their documents' titles, and each conversation names its knowledge base", async () => {
    const w = await admin(1280);
    const { page } = w;
    await page.getByLabel("Knowledge base").selectOption({ label: handbook.name });
    server.fake.script.push({ tokens: ["Staff get thirty days of paid leave a year [1]."] });
    await page.getByLabel("Message").fill("How many days of paid leave do staff get?");
    await page.keyboard.press("Enter");
    const answer = page.locator(".msg.assistant").last();
    await answer.getByRole("button", { name: "Good answer" }).waitFor();
    const source = answer.locator(".sources a").first();
    await source.getByText("Leave policy").waitFor();
    expect(await source.getAttribute("href")).toBe("https://handbook.example.com/leave");
    await page.locator(".kb-line", { hasText: `Knowledge base: ${handbook.name}` }).waitFor();
    await page.locator(".conversations li.active .kb", { hasText: handbook.name }).waitFor();
    await expectClean(w, "1280 playground with titles");
    note(`playground: the source reads "Leave policy" (→ its URL); the conversation names "${handbook.name}"`);
  });

  test("usage: questions asked are counted apart from API requests", async () => {
    const key = (await call(server.adminKey, "POST", "/v1/keys", { name: `counter ${run}`, plan: "pro" })).secret;
    for (const message of ["First question", "Second question"]) await call(key, "POST", "/v1/chat", { message });
    for (let i = 0; i < 5; i++) await call(key, "GET", "/v1/conversations?limit=1");
    const w = await admin(1280);
    await w.page.getByRole("link", { name: "Usage and feedback" }).click();
    const card = w.page.locator("article.card", { hasText: `counter ${run}` });
    await card.waitFor();
    expect(await card.locator(".totals").textContent()).toBe("Questions asked: 2 · API requests: 7");
    expect(await card.getByRole("img", { name: /^Questions asked \(chat turns\): 2 in 14 days$/ }).count()).toBe(1);
    await expectClean(w, "1280 usage");
    note("usage: 2 questions and 5 other requests read 'Questions asked: 2 · API requests: 7'");
  });

  test("rated answers: date, key, a link to the conversation, the answer as Markdown", async () => {
    const rater = { name: `rater ${run}`, plan: "pro", knowledge_base_ids: [handbook.id] };
    const key = (await call(server.adminKey, "POST", "/v1/keys", rater)).secret;
    server.fake.script.push({ tokens: ["Staff get **thirty days** of paid leave [1]."] });
    const question = `How long is paid leave? ${run}`;
    const reply = await call(key, "POST", "/v1/chat", { message: question });
    const base = `/v1/conversations/${reply.conversation_id}/messages/${reply.id}/feedback`;
    const rated = await call(key, "PUT", base, { rating: "down", comment: "Say where to apply" });
    expect({ reply, rated }).toMatchObject({ reply: { status: "completed" }, rated: { rating: "down" } });
    const w = await admin(1280);
    const { page } = w;
    await page.getByRole("link", { name: "Usage and feedback" }).click();
    const item = page.locator(".downs > li", { hasText: question });
    await item.waitFor();
    expect(await item.locator("time").textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await item.locator(".meta strong").textContent()).toBe(`rater ${run}`);
    expect(await item.locator(".md strong").textContent()).toBe("thirty days");
    await expectClean(w, "1280 rated answers");
    await item.getByRole("link", { name: "Open the conversation" }).click();
    await page.getByRole("heading", { name: question, level: 1 }).waitFor();
    await page.locator(".kb-line", { hasText: handbook.name }).waitFor(); // named once looked up
    expect(await page.locator(".msg").count()).toBe(2);
    expect(await page.locator(".msg.assistant .status").textContent()).toContain("Say where to apply");
    expect(await page.getByRole("textbox", { name: "Message" }).count()).toBe(0); // read-only
    await expectClean(w, "1280 conversation view");
    note("rated answers: date, key name, Markdown answer; the link opens the (other key's) conversation read-only");
  });
});

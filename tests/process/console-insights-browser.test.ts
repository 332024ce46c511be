/**
 * The console's Insights page in headless Chromium, at 1280 px and 375 px, against a real server
 * whose store holds turns written straight in (questions and replies with their sources,
 * certainty and ratings, over the last days): the topics, the gaps, the uncertain, unanswered and
 * down-rated questions (paged, each opening its conversation), the pages never cited; axe clean,
 * no console error, no sideways scrolling. INSIGHTS_SCREENSHOTS=1 rewrites docs/insights-1280.png
 * and docs/insights-375.png. Skips cleanly without /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import type { Certainty } from "../../src/contract/index.ts";
import { DEFAULT_KB_ID, messageFeedback } from "../../src/db/schema.ts";
import { ingestDocuments } from "../../src/knowledge/ingest.ts";
import { parseJsonl } from "../../src/knowledge/parse.ts";
import { keyIdOf } from "../helpers/app.ts";
import {
  brokenWords,
  CHROMIUM,
  expectClean,
  launchBrowser,
  note,
  openPage,
  signIn,
  startConsoleServer,
} from "../helpers/console-browser.ts";
import { addMessage, createConversation } from "../helpers/conversations.ts";
import { CORPUS, ownStore, pgliteImage } from "../helpers/store.ts";

setDefaultTimeout(180_000);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`console-insights-browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

const DAY = 86_400_000;
const VALIDATION = "https://wren.example/docs/validation";
const COOKIES = "https://wren.example/docs/cookies";
/** Questions the knowledge base has nothing for: more than one page (10) of them. */
const UNANSWERED = [
  "ratatouille recipe",
  "best ratatouille recipe",
  "recipe for ratatouille with aubergine",
  "how long to bake sourdough bread",
  "sourdough starter feeding schedule",
  "which tent for winter camping",
  "winter camping sleeping bag rating",
  "tax deadline for freelancers",
  "freelancer tax deductions list",
  "guitar chords for beginners",
  "easy beginner guitar songs",
  "how to repot an orchid",
];

type Turn = { sources: string[]; certainty: Certainty | null; rating?: "up" | "down"; daysAgo: number };

describe.skipIf(!hasChromium)("console Insights in Chromium", () => {
  // A store of its own: the run's shared one holds other files' conversations, which analytics would count.
  let own: Awaited<ReturnType<typeof ownStore>>;
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let browser: Browser;

  /** A question and its reply, asked `daysAgo` days ago (plus `i` minutes, to keep their order). */
  async function turn(question: string, reply: Turn, i: number): Promise<void> {
    const { db } = server.store;
    const keyId = await keyIdOf(server.store, server.chatKey);
    const at = Date.now() - reply.daysAgo * DAY - 3_600_000 + i * 60_000;
    const conv = await createConversation(db, keyId, question.slice(0, 40), new Date(at), DEFAULT_KB_ID);
    const user = { conversationId: conv.id, status: "completed" as const, createdAt: new Date(at) };
    await addMessage(db, { ...user, role: "user", content: question });
    const m = await addMessage(db, {
      ...user,
      role: "assistant",
      content: reply.sources.length ? "Here is what the docs say [1]." : "I could not find this in the docs.",
      sources: reply.sources,
      certainty: reply.certainty,
      createdAt: new Date(at + 1),
    });
    if (reply.rating)
      await db
        .insert(messageFeedback)
        .values({ messageId: m.id, keyId, rating: reply.rating, comment: null, updatedAt: new Date(at + 2) });
  }

  beforeAll(async () => {
    await pgliteImage();
    own = await ownStore();
    await ingestDocuments(own.store.db, parseJsonl(readFileSync(CORPUS, "utf8"), CORPUS).docs);
    server = await startConsoleServer({ store: own.store });
    let i = 0;
    for (const [q, d] of [
      ["How do I validate a request body?", 1],
      ["validate the request body against a schema", 3],
      ["request body validation with schemas", 3],
      ["What happens when request body validation fails?", 8],
    ] as const)
      await turn(q, { sources: [VALIDATION], certainty: "answered", rating: "up", daysAgo: d }, i++);
    for (const [q, rating] of [
      ["How do I sign cookies?", "down"],
      ["signing cookies with a secret", "down"],
      ["signed cookie secret", "up"],
    ] as const)
      await turn(q, { sources: [COOKIES], certainty: "uncertain", rating, daysAgo: 2 + (i % 4) }, i++);
    for (const q of UNANSWERED) await turn(q, { sources: [], certainty: "no_sources", daysAgo: 1 + (i % 9) }, i++);
    // A reply stored before certainty was recorded, rated down: "Not recorded", never a guess.
    await turn("Can Wren stream responses?", { sources: [COOKIES], certainty: null, rating: "down", daysAgo: 4 }, i++);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await own?.drop();
  });

  const region = (page: Page, name: string | RegExp) => page.getByRole("region", { name });

  async function shot(page: Page, name: string): Promise<void> {
    if (process.env.INSIGHTS_SCREENSHOTS !== "1") return;
    const path = fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path, fullPage: false });
    const bytes = statSync(path).size;
    note(`screenshot ${name}: ${Math.round(bytes / 1024)} KB`);
    expect(bytes).toBeLessThan(300 * 1024);
  }

  for (const width of [1280, 375]) {
    test(`${width} px: topics, gaps, questions to look at with their conversations, pages never cited`, async () => {
      const w = await openPage(browser, server.url, width);
      const { page } = w;
      await page.setViewportSize({ width, height: width === 1280 ? 1100 : 1500 });
      await signIn(page, server.url, server.adminKey);
      await page.getByRole("navigation").getByRole("link", { name: "Insights" }).click();
      await page.getByRole("heading", { name: "Insights", level: 1 }).waitFor();

      const topics = region(page, "Topics");
      await topics.locator(".topic").first().waitFor({ timeout: 60_000 });
      const topicText = await topics.textContent();
      expect(topicText).toMatch(/request body/i);
      expect(topicText).toContain("Validation"); // the page its answers cited, by title
      // Each topic's days are drawn with their counts as the text alternative.
      const days = await topics
        .getByRole("img", { name: /^Questions per day/ })
        .first()
        .getAttribute("aria-label");
      expect(days).toMatch(/\d{4}-\d{2}-\d{2}: \d+/);
      note(`${width} topics: ${await topics.locator(".topic").count()} cards; first days: ${days}`);

      const gaps = region(page, "Gaps: what to write next");
      await gaps.locator(".topic").first().waitFor();
      const gapText = (await gaps.textContent()) ?? "";
      expect(gapText).toMatch(/ratatouille/);
      expect(gapText).toMatch(/cookie/i);
      expect(gapText).not.toMatch(/request body/i);
      note(`${width} gaps: ${await gaps.locator(".topic").count()} cards, none about request bodies`);

      const uncertain = region(page, "Uncertain answers");
      await uncertain.getByText("How do I sign cookies?", { exact: true }).waitFor();
      const noSources = region(page, "No sources");
      await noSources.getByRole("row").nth(10).waitFor();
      expect(await noSources.getByRole("row").count()).toBe(11); // a header and the first 10
      await noSources.getByRole("button", { name: "More questions" }).click();
      await noSources.getByRole("row").nth(12).waitFor();
      await noSources.getByRole("button", { name: "More questions" }).waitFor({ state: "detached" });
      expect(await noSources.textContent()).toContain("how to repot an orchid");
      note(`${width} no sources: 10 questions, then More questions → all 12`);

      const down = region(page, "Rated down");
      const unrecorded = down.getByRole("row").filter({ hasText: "Can Wren stream responses?" });
      expect(await unrecorded.textContent()).toContain("Not recorded");
      expect(await down.getByRole("row").count()).toBe(4); // a header and the three rated down

      const pages = region(page, "Pages");
      const never = pages.getByRole("heading", { name: /^Never cited \(\d+\)$/ });
      await never.waitFor();
      await pages.getByRole("link", { name: "Routing" }).waitFor();
      expect(await pages.getByRole("link", { name: "Validation" }).count()).toBe(1); // cited most, never "never"
      note(`${width} pages: ${await never.textContent()}, Routing among them; Validation cited most`);

      // A topic's own questions, one click further.
      const firstGap = gaps.locator(".topic").first();
      await firstGap.getByText("Its questions").click();
      await firstGap.getByRole("listitem").filter({ hasText: "Open" }).first().waitFor();

      expect(await brokenWords(page)).toEqual([]);
      await expectClean(w, `${width} insights`);
      await shot(page, `insights-${width}.png`);

      // The conversation, one click away, and back.
      await down.getByRole("link", { name: "Open the conversation of “How do I sign cookies?”" }).click();
      await page.getByRole("heading", { name: "How do I sign cookies?", level: 1 }).waitFor();
      await page.locator(".msg.assistant").first().waitFor();
      await expectClean(w, `${width} conversation from insights`);
      await page.getByRole("link", { name: "← Insights" }).click();
      await page.getByRole("heading", { name: "Insights", level: 1 }).waitFor();
      note(`${width} a down-rated question opened its conversation; its back link returned to Insights`);

      // One knowledge base, and a period before any question: every list says it is empty.
      await page.getByLabel("Knowledge base").selectOption(DEFAULT_KB_ID);
      await region(page, "Topics").locator(".topic").first().waitFor();
      const long = new Date(Date.now() - 400 * DAY).toISOString().slice(0, 10);
      const longer = new Date(Date.now() - 300 * DAY).toISOString().slice(0, 10);
      await page.getByLabel("From (UTC day)").fill(long);
      await page.getByLabel("To (UTC day, included)").fill(longer);
      await region(page, "Topics")
        .getByText(/^No questions in this period/)
        .waitFor();
      await region(page, "Rated down").getByText("No answer was rated down in this period.").waitFor();
      await expectClean(w, `${width} insights, empty period`);
      note(`${width} a period with no question: each list says so`);
      await w.context.close();
    });
  }
});

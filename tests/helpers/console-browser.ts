/**
 * Helpers for the console's browser tests: a real server (the standalone app with the console's
 * embedded files and the widget's script, listening on loopback) answering through a loopback
 * OpenAI-compatible provider, headless Chromium pages that record console errors, page errors and any request to another
 * origin, axe-core run inside the page, and a transcript of what each flow saw.
 */
import { expect } from "bun:test";
import { appendFileSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { llmAgent } from "../../src/agent/llm/index.ts";
import { type AppConfig, createApp } from "../../src/app/app.ts";
import { createKey } from "../../src/auth/keys-admin.ts";
import { createLogger } from "../../src/config/logger.ts";
import type { Store } from "../../src/db/client.ts";
import { consoleAssets } from "../../src/runtime/console-assets.ts";
import { widgetScript } from "../../src/runtime/widget-asset.ts";
import { listen } from "./app.ts";
import { startFakeOpenAI } from "./fake-openai.ts";
import { testStore } from "./store.ts";

export const CHROMIUM = "/usr/bin/chromium";
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One line of the transcript (stdout, and CONSOLE_TRANSCRIPT's file when set). */
export function note(line: string): void {
  console.log(`  · ${line}`);
  if (process.env.CONSOLE_TRANSCRIPT) appendFileSync(process.env.CONSOLE_TRANSCRIPT, `${line}\n`);
}

/**
 * `store`: another than the run's shared one; `keys: false`: no key made (a first run);
 * `options`: the app's (web sources that may crawl a loopback site, say).
 */
export async function startConsoleServer(opts: { store?: Store; keys?: boolean; options?: AppConfig["options"] } = {}) {
  const fake = startFakeOpenAI();
  const store = opts.store ?? (await testStore());
  const agent = llmAgent(
    store.db,
    // No query rewrite: each scripted reply is the answer to one message, follow-ups included.
    {
      provider: "openai-compatible",
      model: "fake",
      baseUrl: `${fake.url}/v1`,
      apiKey: "sk-test",
      timeoutMs: 10_000,
      rewrite: false,
    },
    { logger: createLogger("silent") },
  );
  // The console and /widget.js both, as src/server.ts serves them: the keys page previews the widget.
  const app = createApp({
    store,
    agent,
    consoleAssets,
    widgetScript,
    logger: createLogger("silent"),
    options: opts.options,
  });
  const { url, stop } = listen(app);
  const key = async (name: string, role: "admin" | "chat") =>
    // On a store without roles every key is a chat key.
    (await createKey(store.db, { name, plan: "enterprise", rpm: 100_000, rpd: 1_000_000, role } as never)).secret;
  return {
    url,
    fake,
    store,
    adminKey: opts.keys === false ? "" : await key("console admin", "admin"),
    chatKey: opts.keys === false ? "" : await key("console chat", "chat"),
    async close() {
      stop();
      await app.parley.close();
      await fake.stop();
    },
  };
}

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });

export interface Watched {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and requests to other origins seen so far. */
  problems: string[];
}

/** A page in a new context (its own sessionStorage) at this width, watched for problems. */
export async function openPage(browser: Browser, origin: string, width: number): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    // The sign-in's role probe: a chat key is refused GET /v1/keys (403; 404 before the admin API), by design.
    if (m.type() !== "error" || /\/v1\/keys\?limit=1$/.test(m.location().url)) return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e}`));
  page.on("dialog", (d) => void d.accept());
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    problems.push(`elsewhere: ${url}`);
    return route.abort("internetdisconnected");
  });
  return { page, context, problems };
}

/** Signs in with the keyboard alone: focus the key field, type, Enter. */
export async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/console`);
  await page.getByLabel("API key").waitFor();
  await page.keyboard.press("Tab"); // the key field is the page's first focusable element
  await page.keyboard.type(key);
  await page.keyboard.press("Enter");
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function axe(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, not as an inline <script>, so the page's CSP stays as served.
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    (window as any).axe
      .run(document, { resultTypes: ["violations"] })
      .then((r: any) =>
        r.violations
          .filter((v: any) => v.impact === "serious" || v.impact === "critical")
          .map((v: any) => `${v.impact} ${v.id}: ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`),
      ),
  );
  return result as string[];
}

/** How far the page is wider than the viewport (0: no sideways scrolling), and the first elements past its edge. */
export async function overflowOf(page: Page): Promise<{ overflow: number; wide: string[] }> {
  return page.evaluate(() => {
    const overflow = Math.max(0, document.documentElement.scrollWidth - window.innerWidth);
    const wide = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 3)
      .map((e) => `${e.tagName}.${e.className}`);
    return { overflow, wide: overflow ? wide : [] };
  });
}

/**
 * Words of the tables' visible cells that are broken over lines ("Nam" / "e"): each word of up to
 * 24 characters (longer ones, URLs and ids, may wrap) must sit on one line.
 */
export async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll("main table th, main table td")) {
      // A visually hidden header row (the cards of a phone) is 1 px wide and unseen.
      const head = cell.closest("thead");
      if (cell.getBoundingClientRect().width <= 2 || (head && head.getBoundingClientRect().width <= 2)) continue;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement!;
        if (parent.closest(".visually-hidden") || !parent.checkVisibility()) continue;
        for (const m of node.textContent!.matchAll(/\S+/g)) {
          if (m[0].length > 24) continue;
          const range = document.createRange();
          range.setStart(node, m.index!);
          range.setEnd(node, m.index! + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  });
}

/** CONSOLE_SCREENSHOTS=1: the viewport as docs/console/`name` (a PNG kept under 150 KB). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.CONSOLE_SCREENSHOTS) return;
  const path = join(import.meta.dir, "../../docs/console", name);
  await page.screenshot({ path, fullPage: false });
  const bytes = statSync(path).size;
  note(`screenshot ${name}: ${Math.round(bytes / 1024)} KB`);
  if (bytes > 150 * 1024) throw new Error(`${name} is ${bytes} bytes: keep screenshots under 150 KB`);
}

/** Axe, console errors and sideways overflow of the page as it is: none of them, or the test fails naming `label`. */
export async function expectClean(w: Watched, label: string): Promise<void> {
  const violations = await axe(w.page);
  expect({ label, violations, problems: w.problems, ...(await overflowOf(w.page)) }).toEqual({
    label,
    violations: [],
    problems: [],
    overflow: 0,
    wide: [],
  });
}

/**
 * Watches where `selector`'s first match sits from the moment it shows: at every change of the
 * page, its top (px) is recorded when it differs from the last. The returned reader gives the
 * tops so far: one value means it never moved (a button moving as it shows is one a click misses).
 */
export async function watchTop(page: Page, selector: string): Promise<() => Promise<number[]>> {
  await page.evaluate((sel) => {
    const tops: number[] = [];
    (window as unknown as { __tops: number[] }).__tops = tops;
    new MutationObserver(() => {
      const top = document.querySelector(sel)?.getBoundingClientRect().top;
      if (top !== undefined && tops.at(-1) !== top) tops.push(top);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  }, selector);
  return () => page.evaluate(() => (window as unknown as { __tops: number[] }).__tops);
}

/**
 * The console's first run, in headless Chromium at 375 px and 1280 px, on a store with no key at
 * all: the first-run page says when no setup code is valid, asks for the code the server printed,
 * refuses a wrong one, and exchanges the right one for the first admin key (shown once), then
 * signs in with it; after that the console shows the sign-in page. CONSOLE_SCREENSHOTS=1 writes
 * docs/console/first-run.png and first-run-375.png.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";
import { issueSetupCode } from "../../src/auth/index.ts";
import {
  CHROMIUM,
  expectClean,
  launchBrowser,
  note,
  openPage,
  screenshot,
  startConsoleServer,
} from "../helpers/console-browser.ts";
import { ownStore, pgliteImage } from "../helpers/store.ts";

setDefaultTimeout(120_000);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`console-first-run-browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

describe.skipIf(!hasChromium)("console first run in Chromium", () => {
  let own: Awaited<ReturnType<typeof ownStore>>;
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let browser: Browser;
  let code = "";
  beforeAll(async () => {
    await pgliteImage();
    own = await ownStore();
    server = await startConsoleServer({ store: own.store, keys: false });
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await own?.drop();
  });

  test("no valid code yet: the page says how to get one", async () => {
    const w = await openPage(browser, server.url, 1280);
    await w.page.goto(`${server.url}/console`);
    await w.page.getByRole("heading", { name: "Welcome to Parley" }).waitFor();
    expect(await w.page.getByRole("alert").textContent()).toContain("Restart the server");
    expect(await w.page.getByLabel("Setup code").count()).toBe(0);
    await expectClean(w, "first run, no code");
    note("first run without a live code: the page says to restart the server or use the CLI");
    code = (await issueSetupCode(server.store.db))!.code;
  });

  test("375 px: the page asks for the setup code, fits the screen, passes axe", async () => {
    const w = await openPage(browser, server.url, 375);
    await w.page.goto(`${server.url}/console`);
    await w.page.getByLabel("Setup code").waitFor();
    expect(await w.page.title()).toBe("First run · Parley console");
    await expectClean(w, "375 first run");
    await screenshot(w.page, "first-run-375.png");
  });

  test("1280 px: a wrong code is refused; the right one is the first admin key, shown once, then signed in", async () => {
    const w = await openPage(browser, server.url, 1280);
    const { page } = w;
    await page.goto(`${server.url}/console`);
    await page.getByLabel("Setup code").fill("7K2QX-M9D4R-T0VWP-3HNBE"); // the docs' example, not the live code
    await page.getByLabel("Name of the admin key").fill("docs team");
    await expectClean(w, "1280 first run");
    await screenshot(page, "first-run.png");

    await page.getByRole("button", { name: "Create the admin key" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("setup code is wrong");
    w.problems.length = 0; // the refused exchange's 403 is the browser's own console line

    await page.getByLabel("Setup code").fill(code.toLowerCase());
    await page.getByRole("button", { name: "Create the admin key" }).click();
    const secret = (await page.locator("#new-secret").textContent())!;
    expect(secret).toMatch(/^prl_/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole("button", { name: "Continue to the console" }).click();
    await page.getByRole("link", { name: "Keys" }).click();
    await page.getByRole("row", { name: /^docs team / }).waitFor();
    expect(await page.locator(".role").textContent()).toBe("admin key");
    expect(await page.evaluate(() => sessionStorage.getItem("parley.console.key"))).toBe(secret);
    await expectClean(w, "1280 signed in after setup");
    note(
      "first run: wrong code refused; the right one (typed in lower case) made the admin key 'docs team', copied, signed in",
    );

    // Setup is over: the next visitor signs in, and the code is void.
    const next = await openPage(browser, server.url, 1280);
    await next.page.goto(`${server.url}/console`);
    await next.page.getByLabel("API key").waitFor();
    expect(await next.page.getByRole("button", { name: /setup code/ }).count()).toBe(0);
    const again = await fetch(`${server.url}/v1/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(again.status).toBe(409);
    note("after setup: the console opens on sign-in; the code answers 409 setup_closed");
  });
});

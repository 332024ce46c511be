/**
 * /docs renders in a real browser with the network closed: headless Chromium loads the page from
 * a running server, every request to any other host is refused (and recorded), and the rendered
 * reference shows the API's title and operations. Needs /usr/bin/chromium (.ci/run installs it).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import { docsScript } from "../../src/runtime/docs-asset.ts";
import { harness } from "../helpers/app.ts";
import { hasChromium, launchBrowser, warnIfNoChromium } from "../helpers/browser.ts";

setDefaultTimeout(60_000); // a browser start is slow on a loaded 2-core machine

warnIfNoChromium("docs-browser.test.ts");

describe.skipIf(!hasChromium)("/docs in headless Chromium, offline", () => {
  let browser: Browser | undefined;
  const stops: (() => unknown)[] = [];
  afterAll(async () => {
    await browser?.close();
    for (const stop of stops) await stop();
  });

  test("renders the reference titled Parley API with its operations, asking nothing of any other host", async () => {
    const { store } = await harness();
    const app = createApp({ store, docsScript, logger: createLogger("silent") }).listen({
      port: 0,
      hostname: "127.0.0.1",
    });
    stops.push(() => app.stop());
    const origin = `http://127.0.0.1:${app.server!.port}`;
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const elsewhere: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      elsewhere.push(url);
      return route.abort("internetdisconnected");
    });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe("Parley API");
    // The page opens every tag group, so each operation is listed in the sidebar.
    for (const op of ["Send a message", "List conversations", "Get a conversation", "Delete a conversation"]) {
      await page.getByText(op, { exact: true }).first().waitFor({ timeout: 30_000 });
    }
    expect(await page.getByRole("heading", { name: "Parley API" }).first().isVisible()).toBe(true);
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
    expect({ elsewhere, errors }).toEqual({ elsewhere: [], errors: [] });
  });
});

/**
 * The console's web sources, in headless Chromium: a knowledge base's Sources view adds a source
 * for a docs site this file serves on 127.0.0.1, follows its first sync (the view polls the
 * source while it runs) to "completed" with the site's pages as documents, syncs it again (the
 * pages come back not modified), and deletes it with its documents.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";
import {
  CHROMIUM,
  expectClean,
  launchBrowser,
  note,
  openPage,
  signIn,
  startConsoleServer,
} from "../helpers/console-browser.ts";
import { type DocsSite, docPage, serveDocsSite } from "../helpers/docs-site.ts";

setDefaultTimeout(120_000);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`console-sources-browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

const PAGES = {
  "/": docPage("Lumen docs", "<p>Lumen is a static site host.</p>", ["/docs/install", "/docs/deploy"]),
  "/docs/install": docPage("Install the CLI", "<p>Install the Lumen command line tool with npm.</p>", ["/docs/deploy"]),
  "/docs/deploy": docPage("Deploy a site", "<p>Run lumen deploy in your project folder to publish it.</p>"),
};

describe.skipIf(!hasChromium)("console web sources in Chromium", () => {
  let site: DocsSite;
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let browser: Browser;
  let kbId = "";
  beforeAll(async () => {
    site = serveDocsSite(PAGES);
    server = await startConsoleServer({ options: { sources: { allowPrivateNetworks: true, politeness: false } } });
    browser = await launchBrowser();
    const res = await fetch(`${server.url}/v1/knowledge_bases`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `web-${Date.now()}` }),
    });
    kbId = ((await res.json()) as { id: string }).id;
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    site?.stop();
  });

  test("add a source, watch its sync complete, sync it again, delete it", async () => {
    const w = await openPage(browser, server.url, 1280);
    const { page } = w;
    await signIn(page, server.url, server.adminKey);
    await page.goto(`${server.url}/console#/knowledge/${kbId}`);
    await page.getByRole("heading", { name: "Web sources" }).waitFor();

    await page.getByLabel("Start URL").fill(`${site.origin}/`);
    await page.getByLabel("How pages are found").selectOption("auto");
    await page.getByRole("button", { name: "Add source" }).click();
    const row = page.getByRole("region", { name: "Web sources" }).getByRole("row").filter({ hasText: site.origin });
    await row.getByText(/^completed /).waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain("3 created");
    // The documents beside it were read again when the sync ended.
    await page.getByRole("link", { name: "Install the CLI" }).waitFor();
    note("added a source: its first sync was followed to completed, 3 documents listed");

    await row.getByRole("button", { name: `Sync now ${site.origin}/` }).click();
    await row.getByText("3 not modified").waitFor({ timeout: 30_000 });
    await row.getByText(/^completed /).waitFor();
    await expectClean(w, "web sources");
    note("Sync now: the second sync found the 3 pages not modified; axe clean");

    await row.getByRole("button", { name: `Delete ${site.origin}/` }).click(); // the dialog is accepted
    await row.waitFor({ state: "detached" });
    await page.getByRole("link", { name: "Install the CLI" }).waitFor({ state: "detached" });
    note("deleted the source: its row and its documents are gone");
  });
});

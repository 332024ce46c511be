/**
 * The console's Backups page in headless Chromium, at 1280 px and 375 px: an admin key downloads
 * the store's archive (the button busy while GET /v1/backup answers, then a file saved under the
 * server's name: a gzip stream of JSON lines opening with the archive's header); a refusal (the
 * key's daily quota, for real), a 503 and a lost connection each show as a message on the page;
 * a chat key has no Backups page. Axe clean, no console error, no sideways scrolling.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { createKey } from "../../src/auth/keys-admin.ts";
import {
  CHROMIUM,
  expectClean,
  launchBrowser,
  note,
  openPage,
  signIn,
  startConsoleServer,
} from "../helpers/console-browser.ts";

setDefaultTimeout(120_000);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`console-backup-browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

describe.skipIf(!hasChromium)("console backups in Chromium", () => {
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let browser: Browser;
  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const button = (page: Page) => page.getByRole("button", { name: /^(Download backup|Preparing…)$/ });

  /** Signs in on the Backups page itself (no other page's requests first), with the keyboard. */
  async function signInOnBackups(page: Page, key: string): Promise<void> {
    await page.goto(`${server.url}/console#/backups`);
    await page.getByLabel("API key").fill(key);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Backups", level: 1 }).waitFor();
  }

  for (const width of [1280, 375]) {
    test(`${width} px: an admin key downloads the archive under the server's file name`, async () => {
      const w = await openPage(browser, server.url, width);
      const { page } = w;
      await signIn(page, server.url, server.adminKey);
      await page.getByRole("navigation").getByRole("link", { name: "Backups" }).click();
      await page.getByRole("heading", { name: "Backups", level: 1 }).waitFor();
      expect(await page.locator("#backup-help").textContent()).toContain("parley import FILE");
      await expectClean(w, `${width} backups`);

      // The answer held back until the busy state has been seen.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route("**/v1/backup", async (route) => {
        await held;
        await route.fallback();
      });
      const downloaded = page.waitForEvent("download");
      await button(page).click();
      const busy = button(page);
      await page.getByRole("button", { name: "Preparing…" }).waitFor();
      expect(await busy.isDisabled()).toBe(true);
      expect(await busy.getAttribute("aria-busy")).toBe("true");
      await expectClean(w, `${width} backup preparing`);
      release();

      const download = await downloaded;
      const name = download.suggestedFilename();
      expect(name).toMatch(/^parley-\d{4}-\d{2}-\d{2}\.parley$/);
      const bytes = readFileSync((await download.path())!);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]); // gzip's magic
      const lines = new TextDecoder().decode(Bun.gunzipSync(bytes)).trimEnd().split("\n");
      const header = JSON.parse(lines[0]!);
      expect(header.parley_archive).toBe(1);
      expect(JSON.parse(lines.at(-1)!).parley_archive_end).toBe(true);
      await page.getByRole("status").getByText(`Saved ${name}`).waitFor();
      const again = page.getByRole("button", { name: "Download backup" });
      expect(await again.isEnabled()).toBe(true);
      expect(await again.getAttribute("aria-busy")).toBe("false");
      await expectClean(w, `${width} backup saved`);
      note(
        `${width} downloaded ${name}: ${bytes.length} bytes gzip, ${lines.length} lines, ${header.tables.length} tables`,
      );
      await w.context.close();
    });

    test(`${width} px: a refusal, a 503 and a lost connection show as messages`, async () => {
      // An admin key whose daily quota is spent by the sign-in's two requests: the backup is refused for real.
      const { secret } = await createKey(server.store.db, {
        name: `backup quota ${width}`,
        plan: "enterprise",
        rpm: 1000,
        rpd: 2,
        role: "admin",
      } as never);
      const w = await openPage(browser, server.url, width);
      const { page } = w;
      await signInOnBackups(page, secret);
      await button(page).click();
      const alert = page.getByRole("alert");
      await alert.getByText(/^Daily quota of 2 requests reached/).waitFor();
      expect(await button(page).isEnabled()).toBe(true);
      w.problems.length = 0; // the refused request's 429 is the browser's own console line
      await expectClean(w, `${width} backup refused`);
      note(`${width} refused: ${await alert.textContent()}`);

      await page.route("**/v1/backup", (route) =>
        route.fulfill({
          status: 503,
          contentType: "application/json",
          body: JSON.stringify({ error: { code: "unavailable", message: "The store is not reachable; try again." } }),
        }),
      );
      await button(page).click();
      await alert.getByText("The store is not reachable; try again.").waitFor();
      w.problems.length = 0;
      note(`${width} 503: ${await alert.textContent()}`);

      await page.unroute("**/v1/backup");
      await page.route("**/v1/backup", (route) => route.abort("connectionrefused"));
      await button(page).click();
      await alert.getByText(/server did not answer/).waitFor();
      expect(await button(page).isEnabled()).toBe(true);
      w.problems.length = 0;
      await expectClean(w, `${width} backup lost connection`);
      note(`${width} lost connection: ${await alert.textContent()}`);
      await w.context.close();
    });
  }

  test("a chat key has no Backups page", async () => {
    const w = await openPage(browser, server.url, 1280);
    const { page } = w;
    await signIn(page, server.url, server.chatKey);
    const nav = await page.getByRole("navigation").getByRole("link").allTextContents();
    expect(nav).not.toContain("Backups");
    await page.goto(`${server.url}/console#/backups`);
    await page.getByRole("heading", { name: "Playground", level: 1 }).waitFor();
    expect(await page.getByRole("button", { name: "Download backup" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Backups" }).count()).toBe(0);
    const refused = await fetch(`${server.url}/v1/backup`, { headers: { authorization: `Bearer ${server.chatKey}` } });
    expect(refused.status).toBe(403);
    await expectClean(w, "chat key, #/backups");
    note(`chat key: nav ${JSON.stringify(nav)}; #/backups shows the playground; GET /v1/backup → 403`);
    await w.context.close();
  });
});

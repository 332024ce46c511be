/**
 * Headless Chromium for the browser tests (tests/process/*-browser.test.ts), via playwright-core.
 * Where there is none (CHROMIUM_PATH, default /usr/bin/chromium), `hasChromium` is false and the
 * tests skip: nothing here launches anything on import, so a skipped file starts no browser.
 */
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

/** Says once, on stderr, why `file`'s browser tests are skipped. */
export function warnIfNoChromium(file: string): void {
  if (!hasChromium) console.warn(`${file}: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);
}

/** A headless Chromium with the network flags the machine needs; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

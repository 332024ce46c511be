/**
 * `bun bench/console-load.ts`: the console's first load on a warm server. The standalone app with
 * the embedded console listens on loopback (PGlite in memory); after one warm-up load, headless
 * Chromium opens /console in a new context (empty cache) 20 times and times navigation start to
 * the sign-in form on screen (page, script, stylesheet fetched, parsed, rendered). Prints the
 * median and p90. Needs /usr/bin/chromium.
 */
import { chromium } from "playwright-core";
import { createApp } from "../src/app/app.ts";
import { createLogger } from "../src/config/logger.ts";
import { openPglite } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { consoleAssets } from "../src/runtime/console-assets.ts";

const RUNS = 20;
const store = await openPglite();
await migrate(store);
const app = createApp({ store, consoleAssets, logger: createLogger("silent") }).listen({
  port: 0,
  hostname: "127.0.0.1",
});
const origin = `http://127.0.0.1:${app.server!.port}/console`;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const times: number[] = [];
try {
  for (let i = 0; i <= RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(origin);
    await page.getByLabel("API key").waitFor();
    const ms = await page.evaluate(() => performance.now());
    if (i > 0) times.push(ms); // the first load warms the server
    await context.close();
  }
} finally {
  await browser.close();
  app.stop(true);
  await app.parley.close();
  await store.close();
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
console.log(
  `console first load (warm server, cold browser cache, ${RUNS} runs): median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms (3 requests: page, script, stylesheet)`,
);

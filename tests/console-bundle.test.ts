/**
 * The console as committed: vendor/console/ is exactly what console/ builds to (so `bun start`
 * serves the sources' console with no build step), its gzipped JS stays within 150 KB, and
 * /console serves every file under the strict CSP, with nothing inline in the page.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildConsole, OUT } from "../scripts/build-console.ts";
import { CONSOLE_CSP, consoleRoutes } from "../src/app/console.ts";
import { consoleAssets } from "../src/runtime/console-assets.ts";

setDefaultTimeout(30_000);

describe("console bundle", () => {
  test("the committed bundle is what its sources build to (else: bun run build:console)", async () => {
    const built = await buildConsole();
    for (const [name, text] of Object.entries(built)) {
      expect({ name, upToDate: readFileSync(join(OUT, name), "utf8") === text }).toEqual({ name, upToDate: true });
    }
  });

  test("gzipped JS is at most 150 KB", () => {
    const gz = Bun.gzipSync(readFileSync(join(OUT, "console.js"))).length;
    expect(gz).toBeLessThanOrEqual(150 * 1024);
  });

  test("/console and its files carry the strict CSP; the page has no inline script or style", async () => {
    const app = consoleRoutes(consoleAssets);
    for (const [path, type] of [
      ["/console", "text/html"],
      ["/console/console.js", "text/javascript"],
      ["/console/console.css", "text/css"],
    ] as const) {
      const res = await app.handle(new Request(`http://local${path}`));
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers.get("content-type")).toStartWith(type);
      expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const body = await res.text();
      if (type === "text/html") {
        expect(body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script has a src
        expect(body).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
        expect(body).not.toMatch(/https?:\/\//); // nothing from another origin
      }
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain("unsafe");
  });

  test("without the files (an embedding without the runtime), /console says so and loads nothing", async () => {
    const app = consoleRoutes();
    {
      const res = await app.handle(new Request("http://local/console"));
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain("<script");
      expect((await app.handle(new Request("http://local/console/console.js"))).status).toBe(404);
    }
  });
});

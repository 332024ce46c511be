/**
 * The widget as committed and served: vendor/widget/widget.js is exactly what widget/ builds to
 * (so `bun start` serves the sources' widget with no build step), it stays within its gzipped
 * budget and free of what a strict CSP forbids, and GET /widget.js hands it to any origin with
 * the right headers, hidden from the OpenAPI document; without the file, the route is a JSON 404.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { BUDGET_GZIP, buildWidget, gzipSize, OUT } from "../scripts/build-widget.ts";
import { createApp } from "../src/app/app.ts";
import { widgetRoutes } from "../src/app/widget.ts";
import { createLogger } from "../src/config/logger.ts";
import { widgetScript } from "../src/runtime/widget-asset.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);

const store = await testStore();
const app = createApp({ store, widgetScript, logger: createLogger("silent") });
afterAll(() => app.parley.close());

describe("widget bundle", () => {
  test("the committed bundle is what its sources build to (else: bun run build:widget)", async () => {
    expect(readFileSync(OUT, "utf8") === (await buildWidget())).toBe(true);
  });

  test(`gzipped, it is at most ${BUDGET_GZIP / 1024} KB`, () => {
    expect(gzipSize(readFileSync(OUT, "utf8"))).toBeLessThanOrEqual(35 * 1024);
  });

  test("nothing a strict CSP or model text could abuse: no eval, no HTML strings, no style attributes", () => {
    const js = readFileSync(OUT, "utf8");
    expect(js).not.toMatch(/\beval\(|new Function|innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(js).not.toMatch(/setAttribute\(\s*["']style|\.style\.|<style/);
    expect(js).toContain("adoptedStyleSheets");
  });
});

describe("GET /widget.js", () => {
  test("serves the script to any origin: JS type, nosniff, cross-origin CORP, ACAO *, revalidated", async () => {
    const res = await app.handle(
      new Request("http://local/widget.js", { headers: { origin: "https://site.example" } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toBe(readFileSync(OUT, "utf8"));
  });

  test("hidden from the OpenAPI document", async () => {
    const spec = (await (await app.handle(new Request("http://local/v1/openapi.json"))).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(spec.paths)).not.toContain("/widget.js");
  });

  test("without the file (an embedding without the runtime): the app's JSON 404, saying how to build it", async () => {
    const bare = createApp({ store, logger: createLogger("silent") });
    try {
      const res = await bare.handle(new Request("http://local/widget.js"));
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      const body = (await res.json()) as { error: { code: string; message: string }; request_id: string };
      expect(body.error.code).toBe("not_found");
      expect(body.error.message).toContain("build:widget");
      expect(body.request_id).toMatch(/^req_/);
    } finally {
      await bare.parley.close();
    }
    const alone = await widgetRoutes().handle(new Request("http://local/widget.js"));
    expect(alone.status).toBe(404);
  });
});

/**
 * A live sync keeps its lease while nothing happens (a slow page, a long Crawl-delay): another
 * instance's scheduler, ticking through it on the real clock, must not end it.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Source } from "../src/contract/sources.ts";
import { expectStatus, type Harness, harness } from "./helpers/app.ts";
import { docPage } from "./helpers/docs-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

let a: Harness;
let b: Harness;
let server: ReturnType<typeof Bun.serve>;
let release = () => {};

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/")
        return new Response(docPage("Home", "<p>Home.</p>", ["/slow"]), { headers: { "content-type": "text/html" } });
      if (path === "/slow") {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return new Response(docPage("Slow", "<p>Worth the wait.</p>"), { headers: { "content-type": "text/html" } });
      }
      return new Response("no", { status: 404 });
    },
  });
  const sources = { allowPrivateNetworks: true, politeness: false, leaseMs: 1_000, requestTimeoutMs: 20_000 };
  a = await harness({ options: { sources } });
  b = await harness({ store: a.store, options: { sources } });
});
afterAll(() => server.stop(true));

test("a sync waiting on one slow page for three leases is still its instance's, and completes", async () => {
  const admin = await a.admin();
  const kb = await a.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "lease-kb" } });
  const created = await a.call("POST", `/v1/knowledge_bases/${kb.json.id}/sources`, {
    key: admin,
    json: { url: `http://127.0.0.1:${server.port}/` },
  });
  expectStatus(created, 201);
  // Three leases pass with the page unanswered; the other instance sweeps after each.
  for (let i = 0; i < 3; i++) {
    await Bun.sleep(1_000);
    await b.app.parley.sources.tick();
  }
  release();
  await a.app.parley.sources.idle();
  const got = await a.call("GET", `/v1/knowledge_bases/${kb.json.id}/sources/${created.json.id}`, { key: admin });
  const sync = (got.json as Source).last_sync!;
  expect(sync.status).toBe("completed");
  expect(sync.pages.created).toBe(2);
});

/**
 * A hostile or broken site ends in a completed sync with an error per bad URL, never a hang or a
 * crash: redirect loops, a 10 MB page, a page that never answers, bytes that are not the declared
 * encoding, an endless calendar of links, a redirect into a private address.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Source } from "../src/contract/sources.ts";
import { expectStatus, type Harness, harness } from "./helpers/app.ts";
import { docPage } from "./helpers/docs-site.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

let h: Harness;
let admin: string;
let server: ReturnType<typeof Bun.serve>;
let origin = "";

const LINKS = ["/ok", "/loop", "/big", "/slow", "/latin1", "/calendar/1", "/to-metadata"];

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const html = (body: BodyInit, type = "text/html; charset=utf-8") =>
        new Response(body, { headers: { "content-type": type } });
      if (path === "/") return html(docPage("Home", "<p>The hostile site.</p>", LINKS));
      if (path === "/ok") return html(docPage("Fine", "<p>This page is fine and answers about gizmos.</p>"));
      if (path === "/loop") return Response.redirect(`${origin}/loop-b`, 302);
      if (path === "/loop-b") return Response.redirect(`${origin}/loop`, 302);
      if (path === "/to-metadata") return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
      if (path === "/big") return html(`<html><body><main><p>${"x".repeat(10 * 1024 * 1024)}</p></main></body></html>`);
      if (path === "/slow") {
        await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve()));
        return html("late");
      }
      if (path === "/latin1")
        return html(
          new Uint8Array([
            ...new TextEncoder().encode("<html><body><main><h1>Caf"),
            0xe9,
            0xff,
            ...new TextEncoder().encode(" menu</h1><p>Coffee and more.</p></main></body></html>"),
          ]),
        );
      const month = /^\/calendar\/(\d+)$/.exec(path)?.[1];
      if (month)
        return html(docPage(`Month ${month}`, `<p>Events of month ${month}.</p>`, [`/calendar/${Number(month) + 1}`]));
      return new Response("no", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  // Private networks are allowed for the site itself; the metadata address stays refused.
  h = await harness({
    options: { sources: { allowPrivateNetworks: true, politeness: false, requestTimeoutMs: 2_000 } },
  });
  admin = await h.admin();
});
afterAll(() => server.stop(true));

test("a hostile site: every trap is an error on its URL, and the sync completes", async () => {
  const kb = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: "hostile" } });
  const created = await h.call("POST", `/v1/knowledge_bases/${kb.json.id}/sources`, {
    key: admin,
    json: { url: `${origin}/`, max_depth: 4, type: "crawl" },
  });
  expectStatus(created, 201);
  await h.app.parley.sources.idle();
  const got = await h.call("GET", `/v1/knowledge_bases/${kb.json.id}/sources/${created.json.id}`, { key: admin });
  const sync = (got.json as Source).last_sync!;
  expect(sync.status).toBe("completed");
  const reasons = Object.fromEntries(sync.errors.map((e) => [new URL(e.url).pathname, e.reason]));
  expect(reasons["/loop"] ?? reasons["/loop-b"]).toBe("redirect_loop");
  expect(reasons["/big"]).toBe("too_large");
  expect(reasons["/slow"]).toBe("timeout");
  // Another host is out of scope before its address is even looked at (the address guard's own
  // redirect tests are in sources-fetch.test.ts).
  expect(reasons["/to-metadata"] ?? reasons["/latest/meta-data/"]).toBe("out_of_scope");
  // The endless calendar stops at max_depth: month n is n link hops from the start page.
  const docs = await h.call("GET", `/v1/knowledge_bases/${kb.json.id}/documents?limit=100`, { key: admin });
  const paths = docs.json.data.map((d) => new URL(d.url).pathname).sort();
  expect(paths).toEqual(["/", "/calendar/1", "/calendar/2", "/calendar/3", "/calendar/4", "/latin1", "/ok"]);
  const latin = docs.json.data.find((d) => d.url.endsWith("/latin1"))!;
  const full = await h.call("GET", `/v1/knowledge_bases/${kb.json.id}/documents/${latin.id}`, { key: admin });
  expect(full.json.content).toContain("Coffee and more.");
  expect(full.json.content).toContain("\uFFFD");
});

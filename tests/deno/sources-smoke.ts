/**
 * Web sources on Deno (run by .ci/run): the plugin under Deno.serve crawls a site Deno.serve also
 * serves (ETags, a page linked from nowhere but the sitemap), answers from it, and re-syncs it
 * with 304s. Run: deno run -A tests/deno/sources-smoke.ts
 */
import { createKey, createParley } from "../../src/mod.ts";
import { checker, smokeStore } from "./setup.ts";

const check: (cond: unknown, what: string) => asserts cond = checker("deno sources smoke");
const PAGES: Record<string, string> = {
  "/": `<html><head><title>Orbit</title></head><body><nav><a href="/start">Start</a></nav><main><h1>Orbit</h1><p>Orbit schedules satellites.</p></main></body></html>`,
  "/start": `<html><head><title>Start</title></head><body><main><h1>Getting started</h1><p>Run orbit init to create a mission file.</p></main></body></html>`,
  "/limits": `<html><head><title>Limits</title></head><body><main><h1>Limits</h1><p>A mission holds at most forty satellites.</p></main></body></html>`,
};
const ac = new AbortController();
const site = Deno.serve(
  { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
  (request: Request): Response => {
    const path = new URL(request.url).pathname;
    if (path === "/sitemap.xml") {
      const locs: string[] = Object.keys(PAGES).map((p) => `<url><loc>${origin}${p}</loc></url>`);
      return new Response(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join("")}</urlset>`, {
        headers: { "content-type": "application/xml" },
      });
    }
    const body = PAGES[path];
    if (body === undefined) return new Response("no", { status: 404 });
    const etag = `"${body.length}-${path.length}"`;
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers: { etag } });
    return new Response(body, { headers: { "content-type": "text/html", etag } });
  },
);
const origin = `http://127.0.0.1:${site.addr.port}`;

const { store } = await smokeStore();
const { secret } = await createKey(store.db, {
  name: "deno admin",
  plan: "enterprise",
  rpm: 10_000,
  rpd: 100_000,
  role: "admin",
});
const parley = createParley({ store, options: { sources: { allowPrivateNetworks: true, politeness: false } } });
const api = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, parley.fetch);
const base = `http://127.0.0.1:${api.addr.port}/v1`;
const call = async (method: string, path: string, json?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
};

try {
  const kb = await call("POST", "/knowledge_bases", { name: "orbit" });
  const created = await call("POST", `/knowledge_bases/${kb.json.id}/sources`, { url: `${origin}/` });
  check(created.status === 201 && created.json.last_sync.status === "running", "POST …/sources: 201, its sync running");
  await parley.sources.idle();
  const first = (await call("GET", `/knowledge_bases/${kb.json.id}/sources/${created.json.id}`)).json.last_sync;
  check(
    first.status === "completed" && first.pages.created === 3,
    "the first sync stored 3 pages, the sitemap's own too",
  );
  const found = await call("POST", `/knowledge_bases/${kb.json.id}/search`, {
    query: "how many satellites in a mission",
  });
  check(found.json.data[0]?.url === `${origin}/limits`, "search answers from a crawled page");
  const again = await call("POST", `/knowledge_bases/${kb.json.id}/sources/${created.json.id}/sync`);
  check(again.status === 202, "POST …/sync: 202");
  await parley.sources.idle();
  const second = (await call("GET", `/knowledge_bases/${kb.json.id}/sources/${created.json.id}`)).json.last_sync;
  check(
    second.pages.not_modified === 3 && second.pages.unchanged === 3,
    "the re-sync: 3 pages answered 304, none re-stored",
  );
} finally {
  await parley.close();
  ac.abort();
  await store.close();
}

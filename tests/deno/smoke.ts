/**
 * Deno smoke test (run by .ci/run): the library served with Deno.serve on PGlite, mounted under a
 * prefix in a host Elysia app, exercised over HTTP: every route — chat (JSON and stream), list,
 * get, resume, stop, messages, delete (an empty 204 once failed under Deno.serve, elysia#1277), the 404/405
 * fallback — plus the standalone app's /healthz, /readyz and CORS preflight.
 * Run: deno run -A tests/deno/smoke.ts
 */

import { Elysia } from "elysia";
import { createApp } from "../../src/app/app.ts";
import { type ChatEvent, createClient, ParleyError } from "../../src/client/index.ts";
import { createLogger } from "../../src/config/logger.ts";
import { pdfToDocuments } from "../../src/knowledge/index.ts";
import { createKey, createParley } from "../../src/mod.ts";
import { checker, smokeStore } from "./setup.ts";

const { store, secret } = await smokeStore();
const parley = createParley({ store });
const host = new Elysia().get("/", () => "host app").group("/api", (app) => app.use(parley));

const ac = new AbortController();
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, host.fetch);
const base = `http://127.0.0.1:${server.addr.port}/api`;
const client = createClient({ baseUrl: base, apiKey: secret });
// The standalone app (what `parley serve` runs) on the same store, CORS on.
const standalone = createApp({
  store,
  logger: createLogger("silent"),
  options: { corsOrigins: ["https://app.example"] },
});
const server2 = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, standalone.fetch);
const base2 = `http://127.0.0.1:${server2.addr.port}`;
const auth = { authorization: `Bearer ${secret}` };
/** A raw request: status and parsed JSON body (null for an empty one). */
async function raw(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

const check: (cond: unknown, what: string) => asserts cond = checker("deno smoke");

try {
  const reply = await client.chat({ message: "Does Parley run on Deno?" });
  check(reply.content.includes("Deno.serve"), "chat (JSON)");

  const events: ChatEvent[] = [];
  for await (const e of client.chatStream({ message: "How is it served?", conversationId: reply.conversationId }))
    events.push(e);
  const types = events.map((e) => e.type);
  check(
    types[0] === "start" && types.at(-1) === "end" && types.includes("token") && types.includes("sources"),
    "chat (stream) over SSE",
  );

  const all: string[] = [];
  for await (const c of client.conversations.list()) all.push(c.id);
  check(all.length === 1 && all[0] === reply.conversationId, "list");
  const conv = await client.conversations.get(reply.conversationId);
  const text = events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join("");
  check(
    conv.messages.length === 4 && conv.messages[3]!.content === text,
    "get (streamed tokens equal the stored reply)",
  );
  const start = events[0] as { conversationId: string; messageId?: string };
  const replayed: ChatEvent[] = [];
  for await (const e of client.resume({ conversationId: start.conversationId, messageId: start.messageId!, after: 0 }))
    replayed.push(e);
  check(JSON.stringify(replayed) === JSON.stringify(events), "resume (the stored events, same ids)");
  const tail: ChatEvent[] = [];
  for await (const e of client.resume({ conversationId: start.conversationId, messageId: start.messageId!, after: 2 }))
    tail.push(e);
  check(JSON.stringify(tail) === JSON.stringify(events.slice(2)), "resume after an id");
  const stopped = await client.stop({ conversationId: start.conversationId, messageId: start.messageId! });
  check(stopped.status === "completed" && stopped.content === text, "stop of a finished reply is a no-op");
  const page = await client.conversations.messages(reply.conversationId, { limit: 3 });
  check(
    page.data.length === 3 && page.hasMore && page.data[2]!.id === start.messageId,
    "conversations.messages (client)",
  );
  const anonymous = createClient({ baseUrl: `http://127.0.0.1:${server.addr.port}/api`, apiKey: "nope" });
  const refused = await anonymous.conversations.page().then(
    () => null,
    (e: ParleyError) => e,
  );
  check(refused instanceof ParleyError && refused.status === 401, "401 for a bad key, as ParleyError");

  const msgs = await raw(`${base}/v1/conversations/${reply.conversationId}/messages?limit=2`, { headers: auth });
  check(
    msgs.status === 200 &&
      msgs.json.data.length === 2 &&
      msgs.json.data[1].content === text &&
      msgs.json.pagination.has_more === true,
    "GET /conversations/:id/messages pages the most recent messages",
  );
  const older = await raw(
    `${base}/v1/conversations/${reply.conversationId}/messages?cursor=${msgs.json.pagination.next_cursor}`,
    { headers: auth },
  );
  check(
    older.status === 200 && older.json.data.length === 2 && older.json.pagination.next_cursor === null,
    "… and the older ones by cursor",
  );

  const del = await raw(`${base}/v1/conversations/${reply.conversationId}`, { method: "DELETE", headers: auth });
  check(
    del.status === 204 && del.json === null && del.headers.get("x-request-id") !== null,
    "DELETE → 204, empty body",
  );
  const gone = await raw(`${base}/v1/conversations/${reply.conversationId}`, { headers: auth });
  check(gone.status === 404 && gone.json.error.code === "not_found", "GET after DELETE → 404 JSON");
  const again = await raw(`${base}/v1/conversations/${reply.conversationId}`, { method: "DELETE", headers: auth });
  check(again.status === 404 && again.json.error.code === "not_found", "second DELETE → 404 JSON");
  const unknown = await raw(`${base}/v1/nope`, { headers: auth });
  check(unknown.status === 404 && typeof unknown.json.request_id === "string", "unknown route → 404 JSON");
  const wrong = await raw(`${base}/v1/chat`, { method: "GET", headers: auth });
  check(wrong.status === 405 && wrong.headers.get("allow") === "POST", "wrong method → 405 with Allow");

  const health = await raw(`${base2}/healthz`);
  check(health.status === 200 && health.json.status === "ok", "standalone /healthz");
  const ready = await raw(`${base2}/readyz`);
  check(ready.status === 200 && ready.json.status === "ready", "standalone /readyz");
  const preflight = await raw(`${base2}/v1/chat`, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type",
    },
  });
  check(
    preflight.status === 204 && preflight.headers.get("access-control-allow-origin") === "https://app.example",
    "standalone CORS preflight → 204",
  );
  const list2 = await raw(`${base2}/v1/conversations`, { headers: { ...auth, origin: "https://app.example" } });
  check(
    list2.status === 200 &&
      list2.headers.get("access-control-expose-headers")?.includes("X-RateLimit-Remaining") === true,
    "standalone list with CORS headers",
  );

  // Knowledge bases over HTTP on Deno: the front matter (YAML, TOML) and HTML libraries run here too.
  const { secret: adminSecret } = await createKey(store.db, { name: "deno admin", plan: "pro", role: "admin" });
  const admin = createClient({ baseUrl: base, apiKey: adminSecret }).admin;
  const kb = await admin.knowledgeBases.create({ name: "deno-kb" });
  const uploaded = await admin.documents.uploadFiles(
    kb.id,
    [
      new File(["---\nurl: https://smoke.test/yaml\ntags: [a]\n---\n# Yaml\nyamlword here"], "a.md"),
      new File(['+++\nurl = "https://smoke.test/toml"\n+++\ntomlword here'], "b.md"),
      new File(["<title>Page</title><script>var scriptword</script><h2>Part</h2><p>htmlword here</p>"], "c.html"),
    ],
    { baseUrl: "https://smoke.test/files/" },
  );
  check(uploaded.created === 3 && uploaded.failed === 0, "multipart upload: YAML and TOML front matter, HTML");
  const html = await admin.documents.get(kb.id, uploaded.results[2]!.id!);
  check(
    html.title === "Page" && html.content.includes("## Part") && !html.content.includes("scriptword"),
    "HTML to text, scripts dropped",
  );
  const found = await admin.knowledgeBases.search(kb.id, { query: "tomlword" });
  check(found.length === 1 && found[0]!.url === "https://smoke.test/toml", "search within a knowledge base");
  // PDF (unpdf's pdf.js build) and OpenAPI uploads on Deno, and the converter called directly.
  const fixture = async (name: string) =>
    new File([await Deno.readFile(new URL(`../fixtures/formats/${name}`, import.meta.url))], name);
  const formats = await admin.documents.uploadFiles(
    kb.id,
    [await fixture("guide.pdf"), await fixture("petstore.yaml")],
    {
      baseUrl: "https://smoke.test/files/",
    },
  );
  check(formats.created === 7 && formats.failed === 0, "multipart upload: a PDF (1 document) and an OpenAPI spec (6)");
  const burrows = await admin.knowledgeBases.search(kb.id, { query: "burrow claws" });
  check(
    burrows[0]?.url === "https://smoke.test/files/guide.pdf" && burrows[0].heading === "Burrows",
    "PDF text searchable, headed by its outline",
  );
  const pdf = await pdfToDocuments(
    await Deno.readFile(new URL("../fixtures/formats/plain.pdf", import.meta.url)),
    "https://smoke.test/plain.pdf",
  );
  check(pdf.markdown.startsWith("## Page 1\n\nRelease notes"), "pdfToDocuments on Deno: a section per page");

  // A public key's visitor on Deno: a session for the page's origin, then a streamed answer.
  const site = "https://docs.smoke.test";
  const pk = await createKey(store.db, {
    name: "widget",
    plan: "pro",
    role: "public",
    widget: { allowed_origins: [site] },
  });
  const fromSite = { authorization: `Bearer ${pk.secret}`, origin: site, "content-type": "application/json" };
  const opened = await raw(`${base}/v1/widget/sessions`, { method: "POST", headers: fromSite, body: "{}" });
  check(
    opened.status === 201 && opened.headers.get("access-control-allow-origin") === site,
    "a public key opens a visitor session for its origin",
  );
  // The browser sends the page's Origin on every call; this client does it by hand.
  const visitor = createClient({
    baseUrl: base,
    apiKey: opened.json.token,
    fetch: (url, init) =>
      fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), origin: site } }),
  });
  let answered = "";
  for await (const e of visitor.chatStream({ message: "How do I serve Parley on Deno?" }))
    if (e.type === "token") answered += e.content;
  check(answered.length > 0, "a visitor token streams an answer (Deno: byte chunks)");
} finally {
  ac.abort();
  await server.finished;
  await server2.finished;
  // Each plugin's timers and listeners end with it; the store is closed by its owner, after.
  await parley.close();
  await standalone.parley.close();
  await store.close();
}

/**
 * Deno smoke test (run by .ci/run): the library served with Deno.serve on PGlite, mounted under a
 * prefix in a host Elysia app, exercised over HTTP with the typed client: chat (JSON and stream),
 * list, get, resume, stop.
 * Run: deno run -A tests/deno/smoke.ts
 */
import { Elysia } from "elysia";
import { type ChatEvent, createClient, ParleyError } from "../../src/client/index.ts";
import { createParley, createKey, ingestDocuments, migrate, openPglite } from "../../src/mod.ts";

const store = await openPglite();
await migrate(store);
await ingestDocuments(store.db, [
  { url: "https://smoke.test/deno", title: "Deno", content: "# Deno\nParley runs on Deno as an Elysia plugin served by Deno.serve." },
]);
const { secret } = await createKey(store.db, { name: "deno", plan: "pro" });
const host = new Elysia().get("/", () => "host app").group("/api", (app) => app.use(createParley({ store })));

const ac = new AbortController();
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, host.fetch);
const client = createClient({ baseUrl: `http://127.0.0.1:${server.addr.port}/api`, apiKey: secret });

function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(`deno smoke: ${what}`);
  console.log(`ok - ${what}`);
}

try {
  const reply = await client.chat({ message: "Does Parley run on Deno?" });
  check(reply.content.includes("Deno.serve"), "chat (JSON)");

  const events: ChatEvent[] = [];
  for await (const e of client.chatStream({ message: "How is it served?", conversationId: reply.conversationId })) events.push(e);
  const types = events.map((e) => e.type);
  check(types[0] === "start" && types.at(-1) === "end" && types.includes("token") && types.includes("sources"), "chat (stream) over SSE");

  const all: string[] = [];
  for await (const c of client.conversations.list()) all.push(c.id);
  check(all.length === 1 && all[0] === reply.conversationId, "list");
  const conv = await client.conversations.get(reply.conversationId);
  const text = events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join("");
  check(conv.messages.length === 4 && conv.messages[3]!.content === text, "get (streamed tokens equal the stored reply)");
  const start = events[0] as { conversationId: string; messageId?: string };
  const replayed: ChatEvent[] = [];
  for await (const e of client.resume({ conversationId: start.conversationId, messageId: start.messageId!, after: 0 })) replayed.push(e);
  check(JSON.stringify(replayed) === JSON.stringify(events), "resume (the stored events, same ids)");
  const stopped = await client.stop({ conversationId: start.conversationId, messageId: start.messageId! });
  check(stopped.status === "completed", "stop of a finished reply is a no-op");
  const anonymous = createClient({ baseUrl: `http://127.0.0.1:${server.addr.port}/api`, apiKey: "nope" });
  const refused = await anonymous.conversations.page().then(() => null, (e: ParleyError) => e);
  check(refused instanceof ParleyError && refused.status === 401, "401 for a bad key, as ParleyError");
} finally {
  ac.abort();
  await server.finished;
  await store.close();
}

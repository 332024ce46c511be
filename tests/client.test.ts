/** The typed client against a live server over real HTTP. */
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildClient } from "../scripts/build-client.ts";
import { createClient, ParleyError } from "../src/client/index.ts";
import type { ChatEvent } from "../src/client/types.ts";
import { findKeyBySecret } from "../src/auth/service.ts";
import { createConversation } from "../src/conversations/service.ts";
import { harness, type Harness } from "./helpers/app.ts";
import { scriptedAgent } from "./helpers/agents.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const stops: (() => unknown)[] = [];
afterAll(() => stops.forEach((s) => s()));

async function live(h: Harness, key?: string) {
  const srv = h.app.listen({ port: 0, hostname: "127.0.0.1" });
  stops.push(() => srv.stop(true));
  const apiKey = key ?? (await h.key());
  return { apiKey, client: createClient({ baseUrl: `http://127.0.0.1:${srv.server!.port}/`, apiKey }) };
}

/** A client whose every request gets `respond`'s answer: for what a live server can't produce. */
const canned = (respond: (init: RequestInit) => Response | Promise<Response>) =>
  createClient({ baseUrl: "http://unused.invalid", apiKey: "k", fetch: async (_url, init) => respond(init) });

/** A loopback port nothing listens on. */
function closedPort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

async function thrown(p: Promise<unknown>): Promise<ParleyError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error("expected a ParleyError");
}

describe("client", () => {
  test("chat, then chatStream in the same conversation; tokens equal the stored reply", async () => {
    const { client } = await live(await harness());
    const reply = await client.chat({ message: "What is a lifecycle hook?" });
    expect(reply.id).toStartWith("msg_");
    expect(reply.conversationId).toStartWith("conv_");
    const events: ChatEvent[] = [];
    for await (const e of client.chatStream({ message: "And how do I use it?", conversationId: reply.conversationId })) events.push(e);
    expect(events[0]).toEqual({ id: 1, type: "start", conversationId: reply.conversationId, messageId: (events.at(-1) as { messageId: string }).messageId });
    const end = events.at(-1)!;
    expect(end.type).toBe("end");
    const text = events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join("");
    const conv = await client.conversations.get(reply.conversationId);
    expect(conv.messages).toHaveLength(4);
    expect(conv.messages[3]).toMatchObject({ id: end.type === "end" ? end.messageId : "", content: text, role: "assistant" });
    expect(conv.messages[1]!.content).toBe(reply.content);
  });

  test("aborting a stream ends the iteration", async () => {
    const tokens = Array.from({ length: 50 }, (_, i) => ` x${i}`);
    const { client } = await live(await harness({ agent: scriptedAgent(tokens, { delayMs: 10 }) }));
    const abort = new AbortController();
    const seen: ChatEvent[] = [];
    for await (const e of client.chatStream({ message: "go", signal: abort.signal })) {
      seen.push(e);
      if (seen.length === 3) abort.abort();
    }
    expect(seen.length).toBeLessThan(10);
  });

  test("a failure mid-stream arrives as an error event", async () => {
    const { client } = await live(await harness({ agent: scriptedAgent(["a", "b", "c"], { failAfter: 1 }) }));
    const events: ChatEvent[] = [];
    for await (const e of client.chatStream({ message: "go" })) events.push(e);
    expect(events.map((e) => e.type)).toEqual(["start", "token", "error"]);
    expect(events.at(-1)).toMatchObject({ error: { code: "generation_failed" } });
  });

  test("list() walks every page exactly once; page() gives one page; delete removes", async () => {
    const h = await harness();
    const { client, apiKey } = await live(h);
    const { id: keyId } = (await findKeyBySecret(h.store.db, apiKey))!;
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) ids.push((await createConversation(h.store.db, keyId, `c${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)))).id);
    const seen: string[] = [];
    for await (const c of client.conversations.list({ limit: 10 })) seen.push(c.id);
    expect(seen).toEqual([...ids].reverse());
    const first = await client.conversations.page({ limit: 20 });
    expect(first.data).toHaveLength(20);
    expect(first.hasMore).toBe(true);
    const last = await client.conversations.page({ limit: 20, cursor: (await client.conversations.page({ limit: 40 })).nextCursor! });
    expect(last).toMatchObject({ hasMore: false, nextCursor: null });
    expect(last.data).toHaveLength(5);
    await client.conversations.delete(ids[0]!);
    expect((await thrown(client.conversations.get(ids[0]!))).code).toBe("not_found");
  });

  test("errors are ParleyError with status, code, param, request id and Retry-After", async () => {
    const h = await harness();
    const { client } = await live(h);
    const unknownKey = await live(h, "prl_0000000000000000000000000000000000000000000");
    const e401 = await thrown(unknownKey.client.chat({ message: "hi" }));
    expect(e401).toMatchObject({ status: 401, code: "unauthorized", type: "authentication_error" });
    expect(e401.requestId).toStartWith("req_");
    const e404 = await thrown(client.conversations.get("conv_01jd5x8r7mf6sb1b2k3n4p5q6r"));
    expect(e404).toMatchObject({ status: 404, code: "not_found" });
    const e400 = await thrown(client.chat({ message: "" }));
    expect(e400).toMatchObject({ status: 400, code: "invalid_request", param: "message" });
    const limited = await live(h, await h.key("enterprise", { rpm: 1, rpd: 100 }));
    await limited.client.conversations.page();
    const e429 = await thrown(limited.client.conversations.page());
    expect(e429).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(e429.retryAfter).toBeGreaterThan(0);
    const e429s = await thrown(limited.client.chatStream({ message: "hi" }).next());
    expect(e429s.code).toBe("rate_limit_exceeded");
  });

  test("a non-JSON error body still gives a ParleyError", async () => {
    const client = createClient({
      baseUrl: "http://unused.invalid",
      apiKey: "k",
      fetch: async () => new Response("<html>bad gateway</html>", { status: 502 }),
    });
    const e = await thrown(client.chat({ message: "hi" }));
    expect(e).toMatchObject({ status: 502, code: "http_error" });
    expect(e.message).toContain("bad gateway");
  });

  test("an error body that is JSON but not an error object (null, a string) still gives a ParleyError", async () => {
    const nul = canned(() => Response.json(null, { status: 500, headers: { "x-request-id": "req_null" } }));
    expect(await thrown(nul.chat({ message: "hi" }))).toMatchObject({ status: 500, code: "http_error", message: "null", requestId: "req_null" });
    expect(await thrown(nul.chatStream({ message: "hi" }).next())).toMatchObject({ status: 500, code: "http_error" });
    const str = canned(() => Response.json({ error: "boom", request_id: 7 }, { status: 503 }));
    expect(await thrown(str.conversations.page())).toMatchObject({ status: 503, code: "http_error", requestId: undefined });
  });

  test("a 2xx body that is not the API's JSON (a captive portal's page) is invalid_response", async () => {
    const portal = canned(
      () => new Response("<html>Sign in to the hotel Wi-Fi</html>", { headers: { "content-type": "text/html", "x-request-id": "req_portal" } }),
    );
    for (const call of [
      () => portal.chat({ message: "hi" }),
      () => portal.conversations.get("conv_1"),
      () => portal.conversations.page(),
      () => portal.chatStream({ message: "hi" }).next(),
    ]) {
      const e = await thrown(call());
      expect(e).toMatchObject({ status: 200, code: "invalid_response", requestId: "req_portal" });
      expect(e.message).toContain("text/html");
    }
    const wrongShape = canned(() => Response.json(null));
    expect(await thrown(wrongShape.chat({ message: "hi" }))).toMatchObject({ status: 200, code: "invalid_response" });
    expect(await thrown(wrongShape.conversations.page())).toMatchObject({ status: 200, code: "invalid_response" });
  });

  test("a stream event that is not JSON is invalid_response; a stream that breaks is stream_interrupted", async () => {
    const sse = { "content-type": "text/event-stream", "x-request-id": "req_sse" };
    const garbled = canned(() => new Response(`data: {"type":"start","conversation_id":"conv_1"}\n\ndata: <html>oops\n\n`, { headers: sse }));
    const seen: ChatEvent[] = [];
    const e = await thrown(
      (async () => {
        for await (const ev of garbled.chatStream({ message: "hi" })) seen.push(ev);
      })(),
    );
    expect(seen).toEqual([{ type: "start", conversationId: "conv_1" }]);
    expect(e).toMatchObject({ status: 200, code: "invalid_response", requestId: "req_sse" });
    expect(e.message).toContain("<html>oops");

    const cut = new TypeError("socket closed");
    const broken = canned(() => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(`data: {"type":"token","content":"a"}\n\n`));
          setTimeout(() => c.error(cut), 5);
        },
      });
      return new Response(body, { headers: sse });
    });
    const e2 = await thrown(collect(broken.chatStream({ message: "hi" })));
    expect(e2).toMatchObject({ status: 0, code: "stream_interrupted", requestId: "req_sse" });
    expect(e2.cause).toBe(cut);
  });

  test("no server at all is connection_error (with the cause); the caller's abort stays an AbortError", async () => {
    const client = createClient({ baseUrl: `http://127.0.0.1:${closedPort()}`, apiKey: "k" });
    for (const call of [() => client.chat({ message: "hi" }), () => client.conversations.page(), () => client.chatStream({ message: "hi" }).next()]) {
      const e = await thrown(call());
      expect(e).toMatchObject({ status: 0, code: "connection_error" });
      expect(e.cause).toBeInstanceOf(Error);
    }
    const aborted = AbortSignal.abort();
    await expect(client.chat({ message: "hi", signal: aborted })).rejects.toMatchObject({ name: "AbortError" });
    expect(await collect(client.chatStream({ message: "hi", signal: aborted }))).toEqual([]);
  });

  test("aborting a stream before its response headers ends the iteration quietly", async () => {
    // Live: aborted before the request goes out.
    const { client } = await live(await harness());
    expect(await collect(client.chatStream({ message: "hi", signal: AbortSignal.abort() }))).toEqual([]);
    // A server that has not answered yet when the caller gives up.
    let asked = false;
    const slow = canned(
      (init) =>
        new Promise<Response>((_, reject) => {
          asked = true;
          init.signal!.addEventListener("abort", () => reject(init.signal!.reason));
        }),
    );
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 20);
    expect(await collect(slow.chatStream({ message: "hi", signal: abort.signal }))).toEqual([]);
    expect(asked).toBe(true);
  });

  test("Retry-After as an HTTP-date becomes seconds from now, never negative", async () => {
    const at = (date: Date) =>
      canned(() => Response.json({ error: { type: "rate_limit_error", code: "rate_limit_exceeded", message: "slow down" } }, {
        status: 429,
        headers: { "retry-after": date.toUTCString() },
      }));
    const soon = await thrown(at(new Date(Date.now() + 30_000)).chat({ message: "hi" }));
    expect(soon).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(soon.retryAfter).toBeGreaterThanOrEqual(28);
    expect(soon.retryAfter).toBeLessThanOrEqual(30);
    expect((await thrown(at(new Date(Date.now() - 60_000)).chat({ message: "hi" }))).retryAfter).toBe(0);
  });

  test.skipIf(!Bun.which("node"))("Node: `parley/client` resolves to the built bundle and works against a live server", async () => {
    // A package folder with our package.json and the bundle where its "exports" say: the script
    // imports `parley/client` by name (a self-reference), as a Node user would.
    const dir = mkdtempSync(join(tmpdir(), "parley-client-node-"));
    try {
      await buildClient(join(dir, "dist/client"));
      copyFileSync(join(import.meta.dir, "../package.json"), join(dir, "package.json"));
      const h = await harness();
      const srv = h.app.listen({ port: 0, hostname: "127.0.0.1" });
      stops.push(() => srv.stop(true));
      const baseUrl = `http://127.0.0.1:${srv.server!.port}`;
      const script = join(dir, "smoke.mjs");
      writeFileSync(
        script,
        `import { createClient, ParleyError } from "parley/client";
const [baseUrl, apiKey, refusedUrl] = process.argv.slice(2);
const client = createClient({ baseUrl, apiKey });
const out = { node: process.version };
const reply = await client.chat({ message: "What is a lifecycle hook?" });
out.chat = { id: reply.id, conversationId: reply.conversationId, content: reply.content };
const events = [];
for await (const e of client.chatStream({ message: "And how do I use it?", conversationId: reply.conversationId })) events.push(e);
out.stream = events;
out.list = [];
for await (const c of client.conversations.list()) out.list.push(c.id);
const caught = async (p) => p.then(() => null, (e) => ({ parley: e instanceof ParleyError, status: e.status, code: e.code, requestId: e.requestId }));
out.unauthorized = await caught(createClient({ baseUrl, apiKey: "prl_0000000000000000000000000000000000000000000" }).chat({ message: "hi" }));
out.refused = await caught(createClient({ baseUrl: refusedUrl, apiKey }).chat({ message: "hi" }));
console.log(JSON.stringify(out));
`,
      );
      const proc = Bun.spawn(["node", script, baseUrl, await h.key(), `http://127.0.0.1:${closedPort()}`], {
        stdout: "pipe",
        stderr: "pipe",
      });
      const timer = setTimeout(() => proc.kill(), 15_000);
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      clearTimeout(timer);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const out = JSON.parse(stdout);
      expect(out.chat.id).toStartWith("msg_");
      expect(out.chat.content.length).toBeGreaterThan(0);
      const events = out.stream as ChatEvent[];
      expect(events[0]).toMatchObject({ id: 1, type: "start", conversationId: out.chat.conversationId });
      expect(events.at(-1)!.type).toBe("end");
      const tokens = events.flatMap((e) => (e.type === "token" ? [e.content] : []));
      expect(tokens.length).toBeGreaterThan(0);
      expect(tokens.join("").length).toBeGreaterThan(0);
      expect(out.list).toEqual([out.chat.conversationId]);
      expect(out.unauthorized).toMatchObject({ parley: true, status: 401, code: "unauthorized" });
      expect(out.unauthorized.requestId).toStartWith("req_");
      expect(out.refused).toMatchObject({ parley: true, status: 0, code: "connection_error" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

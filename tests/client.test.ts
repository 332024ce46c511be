/** The typed client against a live server over real HTTP. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createClient, ParleyError } from "../src/client/index.ts";
import type { ChatEvent } from "../src/client/types.ts";
import { scriptedAgent, stuckAgent } from "./helpers/agents.ts";
import { type Harness, harness, keyIdOf } from "./helpers/app.ts";
import { createConversation } from "./helpers/conversations.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const stops: (() => unknown)[] = [];
/** A retry backoff's first wait (ms) for tests counting attempts, not timing them (production: 500). */
const FAST = 5;
afterAll(() => {
  for (const s of stops) s();
});

async function live(h: Harness, key?: string) {
  const srv = h.app.listen({ port: 0, hostname: "127.0.0.1" });
  stops.push(() => srv.stop(true));
  const apiKey = key ?? (await h.key());
  return { apiKey, client: createClient({ baseUrl: `http://127.0.0.1:${srv.server!.port}/`, apiKey }) };
}

/** Resolves once the key's latest reply has ended on the server (polling its conversation list). */
async function finished(h: Harness, key: string): Promise<void> {
  for (;;) {
    const [conv] = (await h.call("GET", "/v1/conversations?limit=1", { key })).json.data;
    if (conv && (await h.call("GET", `/v1/conversations/${conv.id}`, { key })).json.messages[1]?.status === "completed")
      return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A client whose every request gets `respond`'s answer: for what a live server can't produce. */
const canned = (respond: (init: RequestInit) => Response | Promise<Response>) =>
  createClient({
    baseUrl: "http://unused.invalid",
    apiKey: "k",
    maxRetries: 0,
    fetch: async (_url, init) => respond(init),
  });

/** A loopback port nothing listens on. */
function closedPort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

/**
 * A real server in front of the app: answers the first `fails.length` requests itself (a status
 * and headers), then passes requests to the app. Records when each request arrived.
 */
async function front(h: Harness, fails: { status: number; headers?: Record<string, string> }[]) {
  const arrivals: number[] = [];
  const srv = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      arrivals.push(performance.now());
      const fail = fails[arrivals.length - 1];
      if (!fail) return h.app.handle(req);
      const body = {
        error: {
          type: "api_error",
          code: fail.status === 429 ? "rate_limit_exceeded" : "service_unavailable",
          message: "scripted",
        },
        request_id: "req_front",
      };
      return Response.json(body, { status: fail.status, headers: fail.headers });
    },
  });
  stops.push(() => srv.stop(true));
  return { arrivals, baseUrl: `http://127.0.0.1:${srv.port}` };
}

/** A TCP listener that accepts and at once drops every connection, counting them. */
function dropper() {
  let connections = 0;
  const l = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => {
        connections++;
        s.end();
      },
      data() {},
    },
  });
  stops.push(() => l.stop(true));
  return { port: l.port, count: () => connections };
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
    for await (const e of client.chatStream({ message: "And how do I use it?", conversationId: reply.conversationId }))
      events.push(e);
    expect(events[0]).toEqual({
      id: 1,
      type: "start",
      conversationId: reply.conversationId,
      messageId: expect.stringMatching(/^msg_/),
      resumeToken: expect.stringMatching(/^v1\./),
    });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const end = events.at(-1)!;
    expect(end.type).toBe("end");
    const text = events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join("");
    const conv = await client.conversations.get(reply.conversationId);
    expect(conv.messages).toHaveLength(4);
    expect(end).toMatchObject({
      type: "end",
      status: "completed",
      messageId: (events[0] as { messageId: string }).messageId,
    });
    expect(conv.messages[3]).toMatchObject({
      id: end.type === "end" ? end.messageId : "",
      content: text,
      role: "assistant",
      status: "completed",
    });
    expect(conv.pagination).toEqual({ hasMore: false, nextCursor: null });
    expect(reply.status).toBe("completed");
    expect(conv.messages[1]!.content).toBe(reply.content);
  });

  test("after abort() a stream yields nothing more, not even events already received", async () => {
    // No delay: the whole reply is in the client's buffers by the time the loop aborts.
    const tokens = Array.from({ length: 50 }, (_, i) => ` x${i}`);
    const h = await harness({ agent: scriptedAgent(tokens) });
    const { client, apiKey } = await live(h);
    const abort = new AbortController();
    const seen: ChatEvent[] = [];
    for await (const e of client.chatStream({ message: "go", signal: abort.signal })) {
      seen.push(e);
      // Let the rest arrive and be buffered: wait until the server has finished the reply.
      if (seen.length === 1) await finished(h, apiKey);
      if (seen.length === 3) abort.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(["start", "token", "token"]);
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
    const keyId = await keyIdOf(h.store, apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 45; i++)
      ids.push((await createConversation(h.store.db, keyId, `c${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)))).id);
    const seen: string[] = [];
    for await (const c of client.conversations.list({ limit: 10 })) seen.push(c.id);
    expect(seen).toEqual([...ids].reverse());
    const first = await client.conversations.page({ limit: 20 });
    expect(first.data).toHaveLength(20);
    expect(first.hasMore).toBe(true);
    const last = await client.conversations.page({
      limit: 20,
      cursor: (await client.conversations.page({ limit: 40 })).nextCursor!,
    });
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
    const e429 = await thrown(limited.client.conversations.page({}, { maxRetries: 0 }));
    expect(e429).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(e429.retryAfter).toBeGreaterThan(0);
    const e429s = await thrown(limited.client.chatStream({ message: "hi", maxRetries: 0 }).next());
    expect(e429s.code).toBe("rate_limit_exceeded");
  });

  test("a non-JSON error body still gives a ParleyError", async () => {
    const client = canned(() => new Response("<html>bad gateway</html>", { status: 502 }));
    const e = await thrown(client.chat({ message: "hi" }));
    expect(e).toMatchObject({ status: 502, code: "http_error" });
    expect(e.message).toContain("bad gateway");
  });

  test("an error body that is JSON but not an error object (null, a string) still gives a ParleyError", async () => {
    const nul = canned(() => Response.json(null, { status: 500, headers: { "x-request-id": "req_null" } }));
    expect(await thrown(nul.chat({ message: "hi" }))).toMatchObject({
      status: 500,
      code: "http_error",
      message: "null",
      requestId: "req_null",
    });
    expect(await thrown(nul.chatStream({ message: "hi" }).next())).toMatchObject({ status: 500, code: "http_error" });
    const str = canned(() => Response.json({ error: "boom", request_id: 7 }, { status: 503 }));
    expect(await thrown(str.conversations.page())).toMatchObject({
      status: 503,
      code: "http_error",
      requestId: undefined,
    });
  });

  test("a 2xx body that is not the API's JSON (a captive portal's page) is invalid_response", async () => {
    const portal = canned(
      () =>
        new Response("<html>Sign in to the hotel Wi-Fi</html>", {
          headers: { "content-type": "text/html", "x-request-id": "req_portal" },
        }),
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
    const garbled = canned(
      () => new Response(`data: {"type":"start","conversation_id":"conv_1"}\n\ndata: <html>oops\n\n`, { headers: sse }),
    );
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
    const client = createClient({ baseUrl: `http://127.0.0.1:${closedPort()}`, apiKey: "k", maxRetries: 0 });
    for (const call of [
      () => client.chat({ message: "hi" }),
      () => client.conversations.page(),
      () => client.chatStream({ message: "hi" }).next(),
    ]) {
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
      canned(() =>
        Response.json(
          { error: { type: "rate_limit_error", code: "rate_limit_exceeded", message: "slow down" } },
          {
            status: 429,
            headers: { "retry-after": date.toUTCString() },
          },
        ),
      );
    const soon = await thrown(at(new Date(Date.now() + 30_000)).chat({ message: "hi" }));
    expect(soon).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(soon.retryAfter).toBeGreaterThanOrEqual(28);
    expect(soon.retryAfter).toBeLessThanOrEqual(30);
    expect((await thrown(at(new Date(Date.now() - 60_000)).chat({ message: "hi" }))).retryAfter).toBe(0);
  });

  test("429 and 503 are retried after Retry-After (or backoff), at most maxRetries times", async () => {
    const h = await harness();
    const apiKey = await h.key();
    const ok = await front(h, [{ status: 503 }, { status: 429, headers: { "retry-after": "1" } }]);
    const client = createClient({ baseUrl: ok.baseUrl, apiKey, retryBaseDelay: FAST }); // the 503's backoff
    const reply = await client.chat({ message: "hi", idempotencyKey: "k-503" });
    expect(reply.id).toStartWith("msg_");
    expect(ok.arrivals).toHaveLength(3);
    expect(ok.arrivals[2]! - ok.arrivals[1]!).toBeGreaterThanOrEqual(990); // waited out Retry-After: 1
    const always = await front(h, Array(10).fill({ status: 503, headers: { "retry-after": "0" } }));
    const e = await thrown(createClient({ baseUrl: always.baseUrl, apiKey, maxRetries: 3 }).conversations.page());
    expect(e).toMatchObject({ status: 503, code: "service_unavailable" });
    expect(always.arrivals).toHaveLength(4);
    // A Retry-After beyond maxRetryDelay (a daily quota) fails at once, carrying it.
    const daily = await front(h, [{ status: 429, headers: { "retry-after": "3600" } }]);
    const e429 = await thrown(createClient({ baseUrl: daily.baseUrl, apiKey }).conversations.page());
    expect(e429).toMatchObject({ status: 429, retryAfter: 3600 });
    expect(daily.arrivals).toHaveLength(1);
    // Other errors are never retried.
    const other = await front(h, [{ status: 400 }]);
    expect((await thrown(createClient({ baseUrl: other.baseUrl, apiKey }).conversations.page())).status).toBe(400);
    expect(other.arrivals).toHaveLength(1);
  });

  test("408, 409, 429 and 5xx are retried as the openai SDK does; a POST without an idempotency key only on 429", async () => {
    const h = await harness();
    const apiKey = await h.key();
    const now = { "retry-after": "0" };
    // Safe to repeat (a GET, a keyed chat, stop): every retryable status, then the answer.
    const statuses = [408, 409, 429, 500, 502, 504];
    const get = await front(
      h,
      statuses.map((status) => ({ status, headers: now })),
    );
    const page = await createClient({ baseUrl: get.baseUrl, apiKey, maxRetries: 6 }).conversations.page();
    expect(Array.isArray(page.data)).toBe(true);
    expect(get.arrivals).toHaveLength(statuses.length + 1);
    const keyed = await front(h, [
      { status: 500, headers: now },
      { status: 408, headers: now },
    ]);
    const reply = await createClient({ baseUrl: keyed.baseUrl, apiKey }).chat({
      message: "hi",
      idempotencyKey: "k-5xx",
    });
    expect(reply.status).toBe("completed");
    expect(keyed.arrivals).toHaveLength(3);
    // A chat without a key may have run on the server after a 5xx, 408 or 409: never sent again.
    for (const status of [500, 503, 408, 409]) {
      const once = await front(h, [{ status, headers: now }]);
      const e = await thrown(createClient({ baseUrl: once.baseUrl, apiKey }).chat({ message: "hi" }));
      expect(e.status).toBe(status);
      expect(once.arrivals).toHaveLength(1);
    }
    // …but a 429 refused it before anything ran: retried, keyed or not (also as a stream).
    const limited = await front(h, [{ status: 429, headers: now }]);
    const after = await createClient({ baseUrl: limited.baseUrl, apiKey }).chat({ message: "hi" });
    expect(after.status).toBe("completed");
    expect(limited.arrivals).toHaveLength(2);
    // Not retryable: 4xx other than 408/409/429.
    for (const status of [400, 401, 404, 422]) {
      const once = await front(h, [{ status, headers: now }]);
      expect((await thrown(createClient({ baseUrl: once.baseUrl, apiKey }).conversations.page())).status).toBe(status);
      expect(once.arrivals).toHaveLength(1);
    }
  });

  test("results expose their response: request id, rate-limit state, headers (not in JSON or equality)", async () => {
    const h = await harness();
    const { client } = await live(h, await h.key("free"));
    const reply = await client.chat({ message: "How do rate limits work?" });
    expect(reply.response.status).toBe(200);
    expect(reply.response.requestId).toMatch(/^req_/);
    expect(reply.response.rateLimit).toMatchObject({ limit: 20, remaining: 19 });
    expect(reply.response.rateLimit!.reset).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(reply.response.headers.get("ratelimit-policy")).toContain('"minute";q=20');
    expect(Object.keys(reply)).not.toContain("response");
    expect(JSON.stringify(reply)).not.toContain("req_");
    const conv = await client.conversations.get(reply.conversationId);
    expect(conv.response.rateLimit?.remaining).toBe(18);
    expect(conv.response.requestId).not.toBe(reply.response.requestId);
    const page = await client.conversations.page({ limit: 1 });
    expect(page.response.rateLimit?.remaining).toBe(17);
    const msgs = await client.conversations.messages(reply.conversationId);
    expect(msgs.response.status).toBe(200);
    const stopped = await client.stop({ conversationId: reply.conversationId, messageId: reply.id });
    expect(stopped.response.requestId).toMatch(/^req_/);
    const deleted = await client.conversations.delete(reply.conversationId);
    expect(deleted).toMatchObject({ status: 204, rateLimit: { limit: 20, remaining: 14 } });
  });

  test("connection errors are retried maxRetries times (default 2), then connection_error", async () => {
    // FAST: the backoff's length is not what is tested here, how many attempts are.
    const d = dropper();
    const e = await thrown(
      createClient({ baseUrl: `http://127.0.0.1:${d.port}`, apiKey: "k", retryBaseDelay: FAST }).conversations.page(),
    );
    expect(e).toMatchObject({ status: 0, code: "connection_error" });
    expect(d.count()).toBe(3);
    const once = dropper();
    await thrown(
      createClient({ baseUrl: `http://127.0.0.1:${once.port}`, apiKey: "k", retryBaseDelay: FAST }).chat({
        message: "hi",
        maxRetries: 0,
      }),
    );
    expect(once.count()).toBe(1);
    // A chat's POST may have reached the server: sent again only with an Idempotency-Key.
    const unkeyed = dropper();
    const chat = createClient({ baseUrl: `http://127.0.0.1:${unkeyed.port}`, apiKey: "k", retryBaseDelay: FAST });
    expect(await thrown(chat.chat({ message: "hi" }))).toMatchObject({ code: "connection_error" });
    expect(await thrown(chat.chatStream({ message: "hi" }).next())).toMatchObject({ code: "connection_error" });
    expect(unkeyed.count()).toBe(2);
    const keyed = dropper();
    await thrown(
      createClient({ baseUrl: `http://127.0.0.1:${keyed.port}`, apiKey: "k", retryBaseDelay: FAST }).chat({
        message: "hi",
        idempotencyKey: "k1",
      }),
    );
    expect(keyed.count()).toBe(3);
  });

  test("a stream that breaks after start is resumed; maxResumes failed reconnections in a row are stream_interrupted", async () => {
    const sse = { "content-type": "text/event-stream", "x-request-id": "req_sse" };
    const asked: string[] = [];
    const startThenBreak = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(
              new TextEncoder().encode(
                `id: 1\ndata: {"type":"start","conversation_id":"conv_1","message_id":"msg_1"}\n\nid: 2\ndata: {"type":"token","content":"a"}\n\n`,
              ),
            );
            setTimeout(() => c.error(new TypeError("socket closed")), 5);
          },
        }),
        { headers: sse },
      );
    const client = createClient({
      baseUrl: "http://unused.invalid",
      apiKey: "k",
      maxRetries: 0,
      maxResumes: 2,
      retryBaseDelay: FAST,
      fetch: async (url, init) => {
        asked.push(
          `${init.method} ${new URL(url).pathname} ${(init.headers as Record<string, string>)["last-event-id"] ?? ""}`.trim(),
        );
        if (init.method === "POST") return startThenBreak();
        throw new TypeError("connection refused");
      },
    });
    const seen: ChatEvent[] = [];
    const e = await thrown(
      (async () => {
        for await (const ev of client.chatStream({ message: "hi" })) seen.push(ev);
      })(),
    );
    expect(seen.map((ev) => ev.id)).toEqual([1, 2]);
    expect(e).toMatchObject({ status: 0, code: "stream_interrupted" });
    expect((e.cause as ParleyError).code).toBe("connection_error");
    const reconnect = "GET /v1/conversations/conv_1/messages/msg_1/events 2";
    expect(asked).toEqual(["POST /v1/chat", reconnect, reconnect]); // maxResumes: 2
    // A reconnection answered with a client error (the conversation was deleted) is that error.
    const gone = createClient({
      baseUrl: "http://unused.invalid",
      apiKey: "k",
      maxRetries: 0,
      fetch: async (_url, init) =>
        init.method === "POST"
          ? startThenBreak()
          : Response.json(
              { error: { type: "invalid_request_error", code: "not_found", message: "gone" } },
              { status: 404 },
            ),
    });
    expect(await thrown(collect(gone.chatStream({ message: "hi" })))).toMatchObject({ status: 404, code: "not_found" });
  });

  test("resume replays a finished reply's events with their ids; after N skips them; stop of a finished reply answers it", async () => {
    const { client } = await live(await harness({ agent: scriptedAgent(["a", "b", "c"]) }));
    const events = await collect(client.chatStream({ message: "go" }));
    const start = events[0] as { conversationId: string; messageId: string };
    expect(await collect(client.resume({ conversationId: start.conversationId, messageId: start.messageId }))).toEqual(
      events,
    );
    expect(await collect(client.resume({ ...start, after: 3 }))).toEqual(events.slice(3));
    const stopped = await client.stop({ ...start, timeout: 5_000 });
    expect(stopped).toMatchObject({
      id: start.messageId,
      conversationId: start.conversationId,
      role: "assistant",
      content: "abc",
      status: "completed",
    });
    expect(
      await thrown(client.stop({ conversationId: start.conversationId, messageId: "msg_01jd5x8r7mf6sb1b2k3n4p5q6r" })),
    ).toMatchObject({ status: 404, code: "not_found" });
    expect(await collect(client.resume({ ...start, signal: AbortSignal.abort() }))).toEqual([]);
  });

  test("conversations.messages pages back from the newest; history() yields every message newest first", async () => {
    const { client } = await live(await harness());
    const first = await client.chat({ message: "one" });
    await client.chat({ message: "two", conversationId: first.conversationId });
    await client.chat({ message: "three", conversationId: first.conversationId });
    const all = (await client.conversations.get(first.conversationId)).messages;
    expect(all).toHaveLength(6);
    const newest = await client.conversations.messages(first.conversationId, { limit: 4 });
    expect(newest).toMatchObject({ hasMore: true, data: all.slice(2) });
    const older = await client.conversations.messages(first.conversationId, { limit: 4, cursor: newest.nextCursor! });
    expect({ ...older } as object).toEqual({ data: all.slice(0, 2), hasMore: false, nextCursor: null });
    const history: string[] = [];
    for await (const m of client.conversations.history(first.conversationId, { limit: 4 })) history.push(m.id);
    expect(history).toEqual(all.map((m) => m.id).reverse());
    expect(all[1]).toMatchObject({ role: "assistant", status: "completed", usage: null });
    expect((await thrown(client.conversations.messages(first.conversationId, { cursor: "garbage" }))).code).toBe(
      "invalid_cursor",
    );
  });

  test("a timeout bounds each call (timeout error, not retried); for a stream, the longest silence", async () => {
    const h = await harness({ agent: stuckAgent(["a", "b"]) });
    const { client } = await live(h);
    const e = await thrown(client.chat({ message: "hi", timeout: 300 }));
    expect(e).toMatchObject({ status: 0, code: "timeout" });
    const seen: ChatEvent[] = [];
    const e2 = await thrown(
      (async () => {
        for await (const ev of client.chatStream({ message: "hi", timeout: 1_000 })) seen.push(ev);
      })(),
    );
    expect(e2).toMatchObject({ code: "timeout" });
    // Whatever arrived before the silence (all of it, unless the machine is very slow) came through.
    const types: string[] = seen.map((ev) => ev.type);
    expect(types).toEqual(["start", "token", "token"].slice(0, types.length));
    // A server that never answers at all: one attempt, then timeout.
    const silent = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Promise<Response>(() => {}) });
    stops.push(() => silent.stop(true));
    let asked = 0;
    const counting = createClient({
      baseUrl: `http://127.0.0.1:${silent.port}`,
      apiKey: "k",
      timeout: 200,
      fetch: (url, init) => (asked++, fetch(url, init)),
    });
    expect(await thrown(counting.conversations.get("conv_1"))).toMatchObject({ code: "timeout" });
    expect(asked).toBe(1);
  });

  test("every method takes an AbortSignal: a call in flight rejects with the caller's AbortError", async () => {
    const silent = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Promise<Response>(() => {}) });
    stops.push(() => silent.stop(true));
    const client = createClient({ baseUrl: `http://127.0.0.1:${silent.port}`, apiKey: "k" });
    const calls: [string, (signal: AbortSignal) => Promise<unknown>][] = [
      ["chat", (signal) => client.chat({ message: "hi", signal })],
      ["page", (signal) => client.conversations.page({}, { signal })],
      ["list", (signal) => client.conversations.list({}, { signal }).next()],
      ["get", (signal) => client.conversations.get("conv_1", { signal })],
      ["delete", (signal) => client.conversations.delete("conv_1", { signal })],
      ["messages", (signal) => client.conversations.messages("conv_1", {}, { signal })],
      ["stop", (signal) => client.stop({ conversationId: "conv_1", messageId: "msg_1", signal })],
    ];
    for (const [name, call] of calls) {
      const abort = new AbortController();
      const pending = call(abort.signal).then(
        () => "resolved",
        (e) => (e as Error).name,
      );
      setTimeout(() => abort.abort(), 50);
      expect({ name, outcome: await pending }).toEqual({ name, outcome: "AbortError" });
    }
    // Aborting during a retry's wait stops it too.
    const h = await harness();
    const waiting = await front(h, [{ status: 503, headers: { "retry-after": "30" } }]);
    const abort = new AbortController();
    const pending = createClient({ baseUrl: waiting.baseUrl, apiKey: "k" })
      .conversations.page({}, { signal: abort.signal })
      .then(
        () => "resolved",
        (e) => (e as Error).name,
      );
    while (waiting.arrivals.length === 0) await Bun.sleep(10); // the 503 is answered: now in the 30 s wait
    abort.abort();
    expect(await pending).toBe("AbortError");
    expect(waiting.arrivals).toHaveLength(1);
  });
});

/** Odd requests at the edges of the HTTP surface: each gets a clear JSON answer, never a crash. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Elysia } from "elysia";
import type { Agent } from "../src/agent/types.ts";
import { expectError, expectStatus, harness, listen, send, testPlugin } from "./helpers/app.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const key = await h.key();

/** One raw HTTP/1.1 exchange, for requests fetch() refuses to send. */
async function raw(port: number, head: string): Promise<string> {
  let out = "";
  const { promise, resolve } = Promise.withResolvers<string>();
  await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open: (s) => void s.write(head),
      data: (_s, d) => {
        out += d.toString();
      },
      close: () => resolve(out),
      error: () => resolve(out),
    },
  });
  return promise;
}

describe("HTTP edges", () => {
  test("an empty Host header gets JSON answers, not the server's HTML 500", async () => {
    const srv = listen(h.app);
    for (const path of ["/v1/conversations?limit=5", "/v1/nope"]) {
      const res = await raw(
        srv.port,
        `GET ${path} HTTP/1.1\r\nHost: \r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect(res, res).toMatch(/^HTTP\/1\.1 (200|404)/);
      expect(res.toLowerCase(), res).toContain("content-type: application/json");
    }
  });

  test("paths that only end like a route are 404, not 405; a wrong method on a real one is 405", async () => {
    expectError(await h.call("POST", "/v1/v1/chat", { key, json: { message: "hi" } }), 404, "not_found");
    expectError(await h.call("GET", "/v1/v1/conversations", { key }), 404, "not_found");
    const wrong = await h.call("PUT", "/v1/chat", { key, body: "{", headers: { "content-type": "application/json" } });
    expectError(wrong, 405, "method_not_allowed");
    expect(wrong.headers.get("allow")).toBe("POST");
  });

  test("mounted under a prefix, the fallback judges the path within the API", async () => {
    const host = new Elysia().group("/api", (app) => app.use(testPlugin({ store: h.store })));
    expectError(await send(host, "GET", "/api/v1/chat", { key }), 405, "method_not_allowed");
    expectError(await send(host, "GET", "/api/v1/v1/conversations", { key }), 404, "not_found");
    expectStatus(await send(host, "GET", "/api/v1/conversations", { key }), 200);
  });

  test("bodies on routes that take none are never read: 401 without a key, 404 with one", async () => {
    const bad = { body: "{", headers: { "content-type": "application/json" } };
    const id = "conv_01jd5x8r7mf6sb1b2k3n4p5q6r";
    expectError(await h.call("DELETE", `/v1/conversations/${id}`, bad), 401, "unauthorized");
    expectError(await h.call("DELETE", `/v1/conversations/${id}`, { key, ...bad }), 404, "not_found");
    expectError(await h.call("POST", "/v1/nope", { key, ...bad }), 404, "not_found");
  });

  test("limit given twice is ambiguous → 400", async () => {
    const r = await h.call("GET", "/v1/conversations?limit=5&limit=0x10", { key });
    expectError(r, 400, "invalid_request");
    expect(r.json.error.param).toBe("limit");
  });

  test("any query parameter given twice → 400 naming it, on every route that takes one", async () => {
    const conv = (await h.call("POST", "/v1/chat", { key, json: { message: "twice" } })).json;
    const c = conv.conversation_id;
    const urls: [string, string][] = [
      ["/v1/conversations?limit=1&cursor=a&cursor=b", "cursor"],
      [`/v1/conversations/${c}?cursor=a&cursor=a`, "cursor"],
      [`/v1/conversations/${c}/messages?cursor=x&limit=2&cursor=y`, "cursor"],
      [`/v1/conversations/${c}/messages?limit=2&limit=2`, "limit"],
      [`/v1/conversations/${c}/messages/${conv.id}/events?after=1&after=2`, "after"],
      ["/v1/conversations?x=1&x=2", "x"],
    ];
    for (const [url, param] of urls) {
      const r = await h.call("GET", url, { key });
      expectError(r, 400, "invalid_request");
      expect(r.json.error.param, url).toBe(param);
    }
  });

  test("messages that are invisible or not well-formed Unicode → 400 naming message", async () => {
    for (const message of ["\u200b\u200b", " \ufeff ", "rate \ud800 limits"]) {
      const r = await h.call("POST", "/v1/chat", { key, json: { message } });
      expectError(r, 400, "invalid_request");
      expect(r.json.error.param).toBe("message");
    }
  });

  test("a NUL character anywhere that reaches the store → 400, never a 500 (found by the fuzz)", async () => {
    const admin = await h.admin();
    const nul = "a\u0000b";
    const cases = [
      await h.call("POST", "/v1/keys", { key: admin, json: { name: nul, plan: "pro" } }),
      await h.call("POST", "/v1/chat/completions", {
        key: admin,
        json: { model: nul, messages: [{ role: "user", content: "hi" }] },
      }),
      await h.call("GET", "/v1/models/a%00b", { key: admin }),
    ];
    for (const r of cases) {
      expect(r.status, r.text).toBe(400);
      // Parley's error body, or OpenAI's shape on its route: both carry the code and message here.
      expect(r.json, r.text).toMatchObject({
        error: { code: "invalid_request", message: expect.stringContaining("NUL (U+0000)") },
      });
    }
  });

  test("a very long unknown id is not echoed back whole", async () => {
    const r = await h.call("GET", `/v1/conversations/conv_${"x".repeat(10_000)}`, { key });
    expectError(r, 404, "not_found");
    expect(r.json.error.message.length).toBeLessThan(200);
  });

  test("a title never cuts an emoji in half", async () => {
    const r = await h.call("POST", "/v1/chat", { key, json: { message: `a${"😀".repeat(60)}` } });
    expectStatus(r, 200);
    const conv = await h.call("GET", `/v1/conversations/${r.json.conversation_id}`, { key });
    expect(conv.json.title.isWellFormed()).toBe(true);
  });

  test("an agent's odd output is stored as streamed: no NUL, no lone surrogate, string sources only", async () => {
    const odd: Agent = {
      async *respond() {
        yield { type: "token", content: "a\u0000b" };
        yield { type: "token", content: " c\ud800d" };
        yield { type: "token", content: 42 as unknown as string };
        yield { type: "sources", sources: [1, null, "https://example.com/a"] as unknown as string[] };
      },
    };
    const oh = await harness({ agent: odd, store: h.store });
    const k = await oh.key();
    const r = await oh.call("POST", "/v1/chat", { key: k, json: { message: "hi" } });
    expectStatus(r, 200);
    expect(r.json.content).toBe("a\ufffdb c\ufffdd42");
    const conv = await oh.call("GET", `/v1/conversations/${r.json.conversation_id}`, { key: k });
    expectStatus(conv, 200);
    expect(conv.json.messages[1]).toMatchObject({
      content: r.json.content,
      sources: ["https://example.com/a"],
      status: "completed",
    });
  });
});

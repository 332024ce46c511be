/** The typed client against a live server over real HTTP. */
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
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
    expect(events[0]).toEqual({ type: "start", conversationId: reply.conversationId });
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
});

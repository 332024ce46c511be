/** The client's resume, stop and transparent reconnection (Last-Event-ID) against live instances. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createClient } from "../src/client/index.ts";
import type { ChatEvent } from "../src/client/types.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { eventually, get, twoInstances } from "./helpers/instances.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const stops: (() => void)[] = [];
afterAll(() => {
  for (const s of stops) s();
});

const words = (n: number) => Array.from({ length: n }, (_, i) => ` w${i}`);
const text = (events: ChatEvent[]) => events.flatMap((e) => (e.type === "token" ? [e.content] : [])).join("");

/** A fetch that cuts the body of the first `cuts` streaming responses after `bytes` bytes, and counts requests. */
function cuttingFetch(cuts: number, bytes: number) {
  const seen: string[] = [];
  const fetchFn = async (url: string, init: RequestInit) => {
    seen.push(`${init.method ?? "GET"} ${new URL(url).pathname}`);
    const res = await fetch(url, init);
    if (cuts <= 0 || !res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
    cuts--;
    const reader = res.body!.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        const { done, value } = await reader.read();
        if (done) return c.close();
        sent += value.length;
        c.enqueue(value);
        if (sent >= bytes) {
          await reader.cancel();
          c.error(new TypeError("connection reset"));
        }
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
  return { fetchFn, seen };
}

describe("client: streams that survive", () => {
  test("chatStream resumes a broken stream through Last-Event-ID, twice, and the text is exactly the stored reply", async () => {
    const { a, key, stop } = await twoInstances(scriptedAgent(words(60), { delayMs: 10 }));
    stops.push(stop);
    const { fetchFn, seen } = cuttingFetch(2, 600);
    const client = createClient({ baseUrl: a.base, apiKey: key, fetch: fetchFn });
    const events: ChatEvent[] = [];
    for await (const e of client.chatStream({ message: "go" })) events.push(e);
    expect(seen.filter((s) => s.endsWith("/events")).length).toBe(2);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: "end", status: "completed" });
    const conv = await client.conversations.get((events[0] as { conversationId: string }).conversationId);
    expect(text(events)).toBe(conv.messages[1]!.content);
    expect(conv.messages[1]!.content).toBe(words(60).join(""));
  });

  test("resume on the other instance and stop from it", async () => {
    const { a, b, key, stop } = await twoInstances(scriptedAgent(words(400), { delayMs: 10 }));
    stops.push(stop);
    const ca = createClient({ baseUrl: a.base, apiKey: key });
    const cb = createClient({ baseUrl: b.base, apiKey: key });
    const head: ChatEvent[] = [];
    for await (const e of ca.chatStream({ message: "go" })) {
      head.push(e);
      if (head.length === 10) break;
    }
    const start = head[0] as { conversationId: string; messageId: string };
    let resumed = () => {};
    const gotOne = new Promise<void>((r) => (resumed = r));
    const following = (async () => {
      const rest: ChatEvent[] = [];
      for await (const e of cb.resume({
        conversationId: start.conversationId,
        messageId: start.messageId,
        after: head.at(-1)!.id,
      })) {
        rest.push(e);
        resumed();
      }
      return rest;
    })();
    await gotOne; // the resumed stream is live on B: now stop the reply
    const stopped = await cb.stop({ conversationId: start.conversationId, messageId: start.messageId });
    expect(stopped).toMatchObject({ id: start.messageId, conversationId: start.conversationId, status: "stopped" });
    const rest = await following;
    expect(rest.at(-1)).toMatchObject({ type: "end", status: "stopped" });
    expect(text([...head, ...rest])).toBe(stopped.content);
  });

  test("chatStream with an idempotencyKey sends the POST again when its answer is lost: one reply, all events", async () => {
    const { a, key, stop } = await twoInstances(scriptedAgent(words(30), { delayMs: 10 }));
    stops.push(stop);
    let lost = 0;
    // The first POST reaches the server, but its answer never reaches the client.
    const fetchFn = async (url: string, init: RequestInit) => {
      const res = await fetch(url, init);
      if (init.method === "POST" && lost++ === 0) {
        await res.body?.cancel();
        throw new TypeError("connection reset");
      }
      return res;
    };
    const client = createClient({ baseUrl: a.base, apiKey: key, fetch: fetchFn });
    const events: ChatEvent[] = [];
    for await (const e of client.chatStream({ message: "go", idempotencyKey: crypto.randomUUID() })) events.push(e);
    expect(lost).toBe(2);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(text(events)).toBe(words(30).join(""));
    const list = await client.conversations.page();
    expect(list.data.length).toBe(1);
    // Without a key the same loss is an error: a second POST could start a second reply.
    let failed = 0;
    const plain = createClient({
      baseUrl: a.base,
      apiKey: key,
      fetch: async (url, init) => {
        if (init.method === "POST" && failed++ === 0) throw new TypeError("connection reset");
        return fetch(url, init);
      },
    });
    await expect(plain.chatStream({ message: "go" }).next()).rejects.toMatchObject({ code: "connection_error" });
  });

  test("chat with an idempotencyKey: a lost answer is asked again, waits out 409 in progress, gets the one reply", async () => {
    // ~1.2 s of reply: still running when the retry comes (after the transport's first backoff, <= 0.5 s).
    const { a, key, stop } = await twoInstances(scriptedAgent(words(40), { delayMs: 30 }));
    stops.push(stop);
    const statuses: number[] = [];
    let lost = 0;
    const fetchFn = async (url: string, init: RequestInit) => {
      if (init.method === "POST" && lost++ === 0) {
        // The request reaches the server (the reply starts), its answer is lost on the way back.
        void fetch(url, init).then((r) => r.text());
        // Lost only once the server has it: its conversation (and running reply) exists.
        await eventually(
          async () => ((await (await get(a.base, key, "/v1/conversations?limit=1")).json()) as any).data[0],
        );
        throw new TypeError("connection reset");
      }
      const res = await fetch(url, init);
      statuses.push(res.status);
      return res;
    };
    const client = createClient({ baseUrl: a.base, apiKey: key, fetch: fetchFn });
    const reply = await client.chat({ message: "go", idempotencyKey: crypto.randomUUID() });
    expect(reply).toMatchObject({ status: "completed", content: words(40).join("") });
    expect(statuses[0]).toBe(409);
    expect(statuses.at(-1)).toBe(200);
    const list = await client.conversations.page();
    expect(list.data.length).toBe(1);
  });
});

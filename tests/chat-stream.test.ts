/** POST /v1/chat with stream: true, over a real HTTP connection, read with a real SSE parser. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { KeepAlive } from "../src/http/keep-alive.ts";
import { sseResponse } from "../src/http/sse.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { expectStatus, type Harness, harness, listen } from "./helpers/app.ts";
import { eventually, post } from "./helpers/instances.ts";
import { growingSources, readSse } from "./helpers/sse.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const serve = (h: Harness) => listen(h.app).url;

const chat = (base: string, key: string, body: unknown, signal?: AbortSignal) =>
  post(base, key, "/v1/chat", body, {}, signal);

describe("POST /v1/chat (stream)", () => {
  test("start, tokens with growing sources among them, end — tokens concatenate to the stored reply", async () => {
    const h = await harness();
    const base = serve(h);
    const key = await h.key();
    const res = await chat(base, key, { message: "How do I use server-sent events with a generator?", stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const { events, raw } = await readSse(res);

    expect(raw).toStartWith('id: 1\ndata: {"type":"start"');
    // Every frame: its sequence number, then one data line; ids count up from 1 without a gap.
    const frames = raw.split("\n\n").filter(Boolean);
    expect(frames.every((f, i) => new RegExp(`^id: ${i + 1}\ndata: [^\n]+$`).test(f))).toBe(true);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("start");
    // The default agent knows its first page's source before it writes its quote's marker [1].
    expect(types[1]).toBe("sources");
    expect(types.slice(1, -1).every((t) => t === "token" || t === "sources")).toBe(true);
    expect(types.at(-1)).toBe("end");
    expect(types.filter((t) => t === "token").length).toBeGreaterThan(10);

    const start = events[0];
    const sources = growingSources(events);
    const end = events.at(-1);
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) expect(() => new URL(s)).not.toThrow();
    const text = events
      .filter((e) => e.type === "token")
      .map((e) => e.content)
      .join("");

    const conv = await h.call("GET", `/v1/conversations/${start.conversation_id}`, { key });
    expectStatus(conv, 200);
    const reply = conv.json.messages.find((m) => m.id === end.message_id);
    expect(reply).toMatchObject({ role: "assistant", status: "completed", content: text, sources });
  });

  test("continuing a conversation reports its id in start", async () => {
    const h = await harness();
    const base = serve(h);
    const key = await h.key();
    const first = await h.call("POST", "/v1/chat", { key, json: { message: "What is Elysia?" } });
    const res = await chat(base, key, {
      message: "And how do I install it?",
      conversation_id: first.json.conversation_id,
      stream: true,
    });
    const { events } = await readSse(res);
    expect(events[0]).toEqual({
      type: "start",
      conversation_id: first.json.conversation_id,
      message_id: events.at(-1).message_id,
      resume_token: expect.stringMatching(/^v1\.\d+\.[A-Za-z0-9_-]{22}$/),
    });
    expect(events.at(-1)).toEqual({
      type: "end",
      message_id: events[0].message_id,
      status: "completed",
      usage: null,
      certainty: "answered",
    });
    expect(events.at(-1).type).toBe("end");
  });

  test("a failure mid-stream sends exactly one error event and stores a failed message", async () => {
    const h = await harness({ agent: scriptedAgent(["one", " two", " three"], { failAfter: 2 }) });
    const base = serve(h);
    const key = await h.key();
    const { events } = await readSse(await chat(base, key, { message: "fail", stream: true }));
    expect(events.map((e) => e.type)).toEqual(["start", "token", "token", "error"]);
    expect(events.at(-1).error).toMatchObject({ code: "generation_failed", type: "api_error" });
    expect(typeof events.at(-1).error.message).toBe("string");
    const conv = await h.call("GET", `/v1/conversations/${events[0].conversation_id}`, { key });
    expect(conv.json.messages[1]).toMatchObject({ status: "failed", content: "one two" });
  });

  test("keep-alive comments flow while the agent is silent", async () => {
    const h = await harness({ agent: scriptedAgent(["late"], { silenceMs: 350 }), options: { keepAliveMs: 100 } });
    const base = serve(h);
    const key = await h.key();
    const { events, comments } = await readSse(await chat(base, key, { message: "wait", stream: true }));
    expect(comments.filter((c) => c === "ping").length).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.type)).toEqual(["start", "token", "sources", "end"]);
  });

  test("the gap between writes never exceeds the keep-alive interval, whatever came before", async () => {
    // An event shortly after the start, then silence: the ping must follow that event by one
    // interval, not wait for the next fixed tick (which would leave almost two intervals quiet).
    const interval = 300;
    const listeners = new Set<(e: { n: number }) => void>();
    const source = { subscribe: (l: (e: { n: number }) => void) => (listeners.add(l), () => listeners.delete(l)) };
    const res = sseResponse(source, { keepAlive: new KeepAlive(interval), isLast: (e) => e.n === 2 });
    const reader = res.body!.getReader();
    const stamps: number[] = [];
    const reading = (async () => {
      while (!(await reader.read()).done) stamps.push(Date.now());
    })();
    const started = Date.now();
    setTimeout(() => {
      for (const l of listeners) l({ n: 1 });
    }, interval / 2);
    await new Promise((r) => setTimeout(r, interval * 3));
    for (const l of listeners) l({ n: 2 });
    await reading;
    const gaps = [started, ...stamps].slice(1).map((t, i) => t - [started, ...stamps][i]!);
    expect({ gaps, max: Math.max(...gaps) < interval * 1.4 }).toMatchObject({ max: true });
  });

  test("a client that disconnects mid-stream does not lose the reply", async () => {
    const tokens = Array.from({ length: 40 }, (_, i) => ` t${i}`);
    const h = await harness({ agent: scriptedAgent(tokens, { delayMs: 10, sources: ["https://example.com/a"] }) });
    const base = serve(h);
    const key = await h.key();
    const abort = new AbortController();
    const res = await chat(base, key, { message: "long one", stream: true }, abort.signal);
    const { events } = await readSse(res, { stopAfter: 3 });
    abort.abort();
    const convId = events[0].conversation_id;
    const stored = await eventually(async () => {
      const conv = await h.call("GET", `/v1/conversations/${convId}`, { key });
      return conv.json.messages[1]?.status === "in_progress" ? undefined : conv.json.messages[1];
    });
    expect(stored).toMatchObject({ status: "completed", content: tokens.join(""), sources: ["https://example.com/a"] });
  });

  test("deleting the conversation mid-stream ends the stream with one not_found error event", async () => {
    const h = await harness({ agent: scriptedAgent(["a", " b", " c", " d"], { delayMs: 30 }) });
    const base = serve(h);
    const key = await h.key();
    const res = await chat(base, key, { message: "slow", stream: true });
    const reading = readSse(res);
    const list = await h.call("GET", "/v1/conversations", { key });
    expectStatus(await h.call("DELETE", `/v1/conversations/${list.json.data[0]!.id}`, { key }), 204);
    const { events } = await reading;
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "not_found" } });
    expect(events.filter((e) => e.type === "end" || e.type === "error")).toHaveLength(1);
  });

  test("validation errors on a stream request are plain JSON errors", async () => {
    const h = await harness();
    const base = serve(h);
    const key = await h.key();
    const res = await chat(base, key, { message: "", stream: true });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/json");
  });
});

describe("storing a fast reply", () => {
  test("a 1,000-token reply is written in a handful of batched statements, not one per token or two", async () => {
    const base = await harness();
    // Count the statements the run sends through the store's `execute` (flushes, create, finish).
    let statements = 0;
    const db = new Proxy(base.store.db, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop !== "execute" || typeof v !== "function") return v;
        return (...args: unknown[]) => {
          statements++;
          return v.apply(target, args);
        };
      },
    });
    const tokens = Array.from({ length: 1_000 }, (_, i) => ` t${i}`);
    const h = await harness({ agent: scriptedAgent(tokens), store: { ...base.store, db } });
    const key = await h.key();
    const res = await h.app.handle(
      new Request("http://localhost/v1/chat", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ message: "go", stream: true }),
      }),
    );
    const { events } = await readSse(res);
    expect(events.filter((e) => e.type === "token")).toHaveLength(1_000);
    expect(events.at(-1)).toMatchObject({ type: "end", status: "completed" });
    // 1,000 events at up to 256 per flush: 4 flushes, the reply's creation and its finish, plus a
    // little slack (a timer flush). Before the fix every event emitted while a write was under way
    // queued a write of its own: 494 statements on PostgreSQL (PGlite's writes finish too soon to show it).
    expect(statements).toBeLessThan(20);
  });
});

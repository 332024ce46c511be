/**
 * Replies that survive: stored from their first moment, resumable on another instance, stoppable
 * from another instance, and idempotent retries. Two instances on one database (PostgreSQL: two
 * pools; PGlite: one store in one process), real HTTP, a slow scripted agent.
 */
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { findKeyBySecret } from "../src/auth/service.ts";
import { ABANDONED_MS, claim, IDEMPOTENCY_TTL_MS, recordReply } from "../src/chat/idempotency.ts";
import { createReply, flushReply, readEvents as readStored, sweepExpired } from "../src/runs/store.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { eventsPath, eventually, get, post, readEvents, tokensOf, twoInstances } from "./helpers/instances.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const stops: (() => void)[] = [];
afterAll(() => stops.forEach((s) => s()));

const words = (n: number) => Array.from({ length: n }, (_, i) => ` w${i}`);

async function setup(tokens: number, delayMs: number, yielded?: { count: number }) {
  const pair = await twoInstances(scriptedAgent(words(tokens), { delayMs, sources: ["https://example.com/s"], yielded }));
  stops.push(pair.stop);
  return pair;
}

const conversation = async (base: string, key: string, id: string) => (await (await get(base, key, `/v1/conversations/${id}`)).json()) as any;

describe("the reply exists from its first moment", () => {
  test("in_progress on the other instance with the text so far, then completed with exactly the streamed text", async () => {
    const { a, b, key } = await setup(60, 20);
    const res = await post(a.base, key, "/v1/chat", { message: "go", stream: true });
    const first = await readEvents(res, 15);
    const { conversation_id: convId, message_id: msgId } = first[0]!.data;
    expect(first[0]!.data.type).toBe("start");
    expect(msgId).toMatch(/^msg_/);
    const mid = await eventually(async () => {
      const c = await conversation(b.base, key, convId);
      const m = c.messages[1];
      return m?.status === "in_progress" && m.content.length > 0 ? m : undefined;
    });
    expect(mid.id).toBe(msgId);
    expect(words(60).join("")).toStartWith(mid.content);
    const done = await eventually(async () => {
      const m = (await conversation(b.base, key, convId)).messages[1];
      return m.status === "completed" ? m : undefined;
    });
    expect(done).toMatchObject({ content: words(60).join(""), sources: ["https://example.com/s"] });
  });
});

describe("resume", () => {
  test("on the other instance mid-reply: ids continue, tokens concatenate to exactly the stored reply", async () => {
    const { a, b, key } = await setup(80, 15);
    const seen = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }), 20);
    const last = seen.at(-1)!.id;
    const { conversation_id: convId, message_id: msgId } = seen[0]!.data;
    const rest = await readEvents(await get(b.base, key, eventsPath(convId, msgId), { "last-event-id": String(last) }));
    expect(rest[0]!.id).toBe(last + 1);
    const ids = [...seen, ...rest].map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(rest.at(-1)!.data).toEqual({ type: "end", message_id: msgId, status: "completed" });
    const stored = (await conversation(a.base, key, convId)).messages[1];
    expect(tokensOf([...seen, ...rest])).toBe(stored.content);
    expect(stored.content).toBe(words(80).join(""));
  });

  test("a finished reply: the rest at once, ?after works like Last-Event-ID, the header wins", async () => {
    const { a, b, key } = await setup(10, 0);
    const all = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }));
    const { conversation_id: convId, message_id: msgId } = all[0]!.data;
    const replayed = await readEvents(await get(b.base, key, eventsPath(convId, msgId)));
    expect(replayed).toEqual(all);
    const after5 = await readEvents(await get(b.base, key, `${eventsPath(convId, msgId)}?after=5`));
    expect(after5).toEqual(all.slice(5));
    const header = await readEvents(await get(b.base, key, `${eventsPath(convId, msgId)}?after=5`, { "last-event-id": "9" }));
    expect(header).toEqual(all.slice(9));
  });

  test("only the owning key; unknown, malformed or mismatched ids are 404; a bad position is 400", async () => {
    const { a, b, key } = await setup(3, 0);
    const other = await a.h.key();
    const all = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }));
    const { conversation_id: convId, message_id: msgId } = all[0]!.data;
    const mine = await readEvents(await post(a.base, key, "/v1/chat", { message: "another", stream: true }));
    const cases: [string, string, number, string][] = [
      [other, eventsPath(convId, msgId), 404, "not_found"],
      [key, eventsPath(mine[0]!.data.conversation_id, msgId), 404, "not_found"],
      [key, eventsPath(convId, "msg_nope"), 404, "not_found"],
      [key, eventsPath("conv_x", msgId), 404, "not_found"],
      [key, `${eventsPath(convId, msgId)}?after=-1`, 400, "invalid_request"],
      [key, `${eventsPath(convId, msgId)}?after=1e3`, 400, "invalid_request"],
    ];
    for (const [k, path, status, code] of cases) {
      const res = await get(b.base, k, path);
      const body = (await res.json()) as any;
      expect({ path, status: res.status, code: body.error?.code }).toEqual({ path, status, code });
    }
    const stop = await post(b.base, other, `/v1/conversations/${convId}/messages/${msgId}/stop`);
    expect(stop.status).toBe(404);
  });
});

describe("stop", () => {
  test("from the other instance: generation ceases, partial reply stored as stopped, every stream ends stopped", async () => {
    const yielded = { count: 0 };
    const { a, b, key } = await setup(400, 15, yielded);
    const res = await post(a.base, key, "/v1/chat", { message: "go", stream: true });
    const reader = readEvents(res);
    const head = await eventually(async () => (yielded.count >= 10 ? true : undefined));
    expect(head).toBe(true);
    // A follower on the generating instance and one on the other, both open when the stop comes.
    const list = (await (await get(b.base, key, "/v1/conversations?limit=1")).json()) as any;
    const convId = list.data[0].id;
    const msgId = (await conversation(b.base, key, convId)).messages[1].id;
    const followA = readEvents(await get(a.base, key, eventsPath(convId, msgId), { "last-event-id": "3" }));
    const followB = readEvents(await get(b.base, key, eventsPath(convId, msgId), { "last-event-id": "2" }));
    const stopped = await post(b.base, key, `/v1/conversations/${convId}/messages/${msgId}/stop`);
    const body = (await stopped.json()) as any;
    expect({ status: stopped.status, body }).toMatchObject({ status: 200, body: { id: msgId, conversation_id: convId, status: "stopped" } });
    const [events, fa, fb] = await Promise.all([reader, followA, followB]);
    for (const stream of [events, fa, fb]) expect(stream.at(-1)!.data).toEqual({ type: "end", message_id: msgId, status: "stopped" });
    expect(tokensOf(events)).toBe(body.content);
    expect(tokensOf([...events.slice(0, 2), ...fb])).toBe(body.content);
    // Tokens really cease: neither the agent nor the store moves any more.
    const atStop = yielded.count;
    expect(atStop).toBeLessThan(400);
    await new Promise((r) => setTimeout(r, 500));
    expect(yielded.count).toBe(atStop);
    const later = (await conversation(a.base, key, convId)).messages[1];
    expect(later).toMatchObject({ status: "stopped", content: body.content });
    const replay = await readEvents(await get(a.base, key, eventsPath(convId, msgId)));
    expect(replay.length).toBe(events.length);
    // Stopping again is a no-op that answers the final state.
    const again = await post(a.base, key, `/v1/conversations/${convId}/messages/${msgId}/stop`);
    expect(await again.json()).toMatchObject({ status: "stopped", content: body.content });
  });

  test("stopping a finished reply answers its final status and changes nothing", async () => {
    const { a, b, key } = await setup(5, 0);
    const reply = (await (await post(a.base, key, "/v1/chat", { message: "go" })).json()) as any;
    const res = await post(b.base, key, `/v1/conversations/${reply.conversation_id}/messages/${reply.id}/stop`);
    expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 200, body: { id: reply.id, status: "completed", content: reply.content } });
  });
});

describe("Idempotency-Key", () => {
  const chatIdem = (base: string, key: string, body: unknown, idem: string) => post(base, key, "/v1/chat", body, { "idempotency-key": idem });

  test("JSON: racing retries on both instances store one turn; later retries get the same answer; another body is 422", async () => {
    const { a, b, key } = await setup(30, 10);
    const idem = `k-${crypto.randomUUID()}`;
    const body = { message: "once only" };
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => chatIdem(i % 2 ? a.base : b.base, key, body, idem)));
    const statuses = answers.map((r) => r.status).sort();
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as any[];
    expect({ statuses, bodies }).toMatchObject({ statuses: [200, 409, 409, 409, 409, 409] });
    const conflict = answers.find((r) => r.status === 409)!;
    expect(conflict.headers.get("retry-after")).toBe("1");
    expect(bodies.find((x) => x.error)?.error.code).toBe("idempotency_in_progress");
    const winner = bodies.find((x) => x.id)!;
    const retry = await chatIdem(b.base, key, body, idem);
    expect({ status: retry.status, body: await retry.json() }).toEqual({ status: 200, body: winner });
    const list = (await (await get(a.base, key, "/v1/conversations")).json()) as any;
    expect(list.data.length).toBe(1);
    expect((await conversation(a.base, key, list.data[0].id)).messages.length).toBe(2);
    const reused = await chatIdem(a.base, key, { message: "something else" }, idem);
    expect({ status: reused.status, code: ((await reused.json()) as any).error.code }).toEqual({ status: 422, code: "idempotency_key_reused" });
  });

  test("stream: concurrent retries on both instances all get the one run's events from the start", async () => {
    const { a, b, key } = await setup(40, 10);
    const idem = `s-${crypto.randomUUID()}`;
    const streams = await Promise.all(
      Array.from({ length: 6 }, (_, i) => chatIdem(i % 2 ? a.base : b.base, key, { message: "stream once", stream: true }, idem).then((r) => readEvents(r))),
    );
    const ids = new Set(streams.map((s) => s[0]!.data.message_id));
    expect(ids.size).toBe(1);
    for (const s of streams) {
      expect(s.map((e) => e.id)).toEqual(streams[0]!.map((e) => e.id));
      expect(tokensOf(s)).toBe(words(40).join(""));
      expect(s.at(-1)!.data.type).toBe("end");
    }
    const list = (await (await get(a.base, key, "/v1/conversations")).json()) as any;
    expect(list.data.length).toBe(1);
  });

  test("an early error is replayed as it was; a bad key is 400", async () => {
    const { a, b, key } = await setup(3, 0);
    const idem = "missing-conv";
    const body = { message: "hi", conversation_id: "conv_01m84ce5vsfzzshp5m40jxfxtz" };
    const first = await chatIdem(a.base, key, body, idem);
    const second = await chatIdem(b.base, key, body, idem);
    expect([first.status, second.status]).toEqual([404, 404]);
    expect(((await second.json()) as any).error.code).toBe("not_found");
    for (const bad of ["", "x".repeat(256), "caf\u00e9"]) {
      const res = await chatIdem(a.base, key, { message: "hi" }, bad).catch(() => null);
      if (res) expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
  });
});

describe("200 clients resuming at random points", () => {
  test("each reconstructs exactly the stored reply", async () => {
    const { a, b, key } = await setup(150, 15);
    const first = await readEvents(await post(a.base, key, "/v1/chat", { message: "many", stream: true }), 1);
    const { conversation_id: convId, message_id: msgId } = first[0]!.data;
    const path = eventsPath(convId, msgId);
    const client = async (i: number) => {
      await new Promise((r) => setTimeout(r, Math.random() * 1_500));
      const [one, two] = i % 2 ? [a, b] : [b, a];
      const head = await readEvents(await get(one.base, key, path), 1 + Math.floor(Math.random() * 120));
      const last = head.at(-1)!;
      if (last.data.type === "end") return head;
      const tail = await readEvents(await get(two.base, key, path, { "last-event-id": String(last.id) }));
      return [...head, ...tail];
    };
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => client(i)));
    const stored = (await conversation(a.base, key, convId)).messages[1];
    expect(stored.status).toBe("completed");
    let exact = 0;
    for (const events of results) {
      const ids = events.map((e) => e.id);
      if (tokensOf(events) === stored.content && ids.every((id, i) => id === i + 1) && events.at(-1)!.data.type === "end") exact++;
    }
    expect(exact).toBe(200);
  });
});

describe("lease", () => {
  test("of many sweeps racing on both instances exactly one ends an expired reply; the late writer is refused", async () => {
    const { a, b, key } = await setup(1, 0);
    const reply = (await (await post(a.base, key, "/v1/chat", { message: "seed" })).json()) as any;
    const id = `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`;
    const past = Date.now() - 1_000;
    await createReply(a.h.store.db, { id, conversationId: reply.conversation_id, createdAt: past, leaseUntil: past, start: '{"type":"start"}' });
    const swept = await Promise.all(Array.from({ length: 10 }, (_, i) => sweepExpired((i % 2 ? a : b).h.store.db, Date.now(), i < 5 ? id : undefined)));
    expect(swept.flat().filter((x) => x === id)).toHaveLength(1);
    // The instance that held the lease comes back and tries to write: nothing lands.
    const late = await flushReply(a.h.store.db, { id, events: [{ seq: 2, data: '{"type":"token","content":"late"}' }], delta: "late", lastSeq: 2, leaseUntil: Date.now() + 10_000 });
    expect(late).toBe("gone");
    const events = await readStored(b.h.store.db, id, 0);
    expect(events.map((e) => JSON.parse(e.data).type)).toEqual(["start", "error"]);
    const conv = await conversation(b.base, key, reply.conversation_id);
    expect(conv.messages.find((m: any) => m.id === id)).toMatchObject({ status: "failed", content: "" });
  });

  test("a live reply keeps its lease while its agent is silent for longer than the lease", async () => {
    // Lease 1 s on both instances (sweeping every 0.5 s); the agent says nothing for 2.5 s.
    const pair = await twoInstances(scriptedAgent(["late", " but alive"], { silenceMs: 2_500 }), { replyLeaseMs: 1_000 });
    stops.push(pair.stop);
    const { a, b, key } = pair;
    const events = await readEvents(await post(a.base, key, "/v1/chat", { message: "think first", stream: true }));
    expect(events.at(-1)!.data).toMatchObject({ type: "end", status: "completed" });
    const stored = (await conversation(b.base, key, events[0]!.data.conversation_id)).messages[1];
    expect(stored).toMatchObject({ status: "completed", content: "late but alive" });
  });

  test("a reply whose lease passed reads as failed on GET /v1/conversations/:id at once", async () => {
    const { a, b, key } = await setup(1, 0);
    const reply = (await (await post(a.base, key, "/v1/chat", { message: "seed" })).json()) as any;
    const id = `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`;
    const past = Date.now() - 1_000;
    await createReply(a.h.store.db, { id, conversationId: reply.conversation_id, createdAt: past + 5_000, leaseUntil: past, start: '{"type":"start"}' });
    const conv = await conversation(b.base, key, reply.conversation_id);
    expect(conv.messages.find((m: any) => m.id === id)).toMatchObject({ status: "failed" });
  });
});

describe("edges", () => {
  test("a JSON request whose reply is stopped gets 200 with the partial text and status stopped", async () => {
    const { a, b, key } = await setup(400, 10);
    const pending = post(a.base, key, "/v1/chat", { message: "long" });
    const msg = await eventually(async () => {
      const list = (await (await get(b.base, key, "/v1/conversations?limit=1")).json()) as any;
      if (!list.data[0]) return undefined;
      const m = (await conversation(b.base, key, list.data[0].id)).messages[1];
      return m?.content.length ? { ...m, conversation_id: list.data[0].id } : undefined;
    });
    await post(b.base, key, `/v1/conversations/${msg.conversation_id}/messages/${msg.id}/stop`);
    const res = await pending;
    const body = (await res.json()) as any;
    expect({ status: res.status, body }).toMatchObject({ status: 200, body: { id: msg.id, status: "stopped" } });
    expect(words(400).join("")).toStartWith(body.content);
    expect(body.content.length).toBeLessThan(words(400).join("").length);
  });

  test("a position past the end still gets the terminal event, on the generating instance and elsewhere", async () => {
    const { a, b, key } = await setup(30, 10);
    const head = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }), 2);
    const { conversation_id: convId, message_id: msgId } = head[0]!.data;
    const [onA, onB] = await Promise.all([
      readEvents(await get(a.base, key, `${eventsPath(convId, msgId)}?after=100000`)),
      readEvents(await get(b.base, key, `${eventsPath(convId, msgId)}?after=100000`)),
    ]);
    for (const events of [onA, onB]) expect(events.map((e) => e.data.type)).toEqual(["end"]);
  });

  test("an Idempotency-Key whose first request died before starting a reply is taken over after a minute", async () => {
    const { a, key } = await setup(1, 0);
    const keyId = (await findKeyBySecret(a.h.store.db, key))!.id;
    const t0 = Date.now();
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0)).kind).toBe("first");
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + 1_000)).kind).toBe("pending");
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + ABANDONED_MS + 1)).kind).toBe("first");
    await recordReply(a.h.store.db, keyId, "orphan", "msg_x");
    // A record with a reply is never taken over before its 24 h.
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + 3_600_000)).kind).toBe("reply");
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + IDEMPOTENCY_TTL_MS + ABANDONED_MS + 2)).kind).toBe("first");
  });
});

/**
 * Resume: a reply exists from its first moment and can be followed from any event id, on the
 * instance generating it or another one (PostgreSQL: two pools; PGlite: one store, one process).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createClient } from "../src/client/index.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import {
  conversation,
  eventsPath,
  eventually,
  get,
  post,
  readEvents,
  tokensOf,
  twoInstances,
  twoSlow,
  words,
} from "./helpers/instances.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

/**
 * Two instances whose agent says `tokens` words at once but waits for `open` before word
 * `before`: the reply is certainly still running until the test opens it (no clock involved).
 */
const gatedPair = (tokens: number, before: number, open: Promise<void>) =>
  twoInstances(scriptedAgent(words(tokens), { gate: { before, open }, sources: ["https://example.com/s"] }));

describe("the reply exists from its first moment", () => {
  test("in_progress on the other instance with the text so far, then completed with exactly the streamed text", async () => {
    const gate = Promise.withResolvers<void>();
    const { a, b, key } = await gatedPair(60, 30, gate.promise);
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
    gate.resolve();
    const done = await eventually(async () => {
      const m = (await conversation(b.base, key, convId)).messages[1];
      return m.status === "completed" ? m : undefined;
    });
    expect(done).toMatchObject({ content: words(60).join(""), sources: ["https://example.com/s"] });
  });
});

describe("resume", () => {
  test("on the other instance mid-reply: ids continue, tokens concatenate to exactly the stored reply", async () => {
    const gate = Promise.withResolvers<void>();
    const { a, b, key } = await gatedPair(80, 40, gate.promise);
    const seen = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }), 20);
    const last = seen.at(-1)!.id;
    const { conversation_id: convId, message_id: msgId } = seen[0]!.data;
    const following = await get(b.base, key, eventsPath(convId, msgId), { "last-event-id": String(last) });
    gate.resolve(); // B follows before the rest is written
    const rest = await readEvents(following);
    expect(rest[0]!.id).toBe(last + 1);
    const ids = [...seen, ...rest].map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(rest.at(-1)!.data).toEqual({
      type: "end",
      message_id: msgId,
      status: "completed",
      usage: null,
      certainty: "answered",
    });
    const stored = (await conversation(a.base, key, convId)).messages[1];
    expect(tokensOf([...seen, ...rest])).toBe(stored.content);
    expect(stored.content).toBe(words(80).join(""));
  });

  test("a finished reply: the rest at once, ?after works like Last-Event-ID, the header wins", async () => {
    const { a, b, key } = await twoSlow(10, 0);
    const all = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }));
    const { conversation_id: convId, message_id: msgId } = all[0]!.data;
    const replayed = await readEvents(await get(b.base, key, eventsPath(convId, msgId)));
    expect(replayed).toEqual(all);
    const after5 = await readEvents(await get(b.base, key, `${eventsPath(convId, msgId)}?after=5`));
    expect(after5).toEqual(all.slice(5));
    const header = await readEvents(
      await get(b.base, key, `${eventsPath(convId, msgId)}?after=5`, { "last-event-id": "9" }),
    );
    expect(header).toEqual(all.slice(9));
  });

  test("only the owning key; unknown, malformed or mismatched ids are 404; a bad position is 400", async () => {
    const { a, b, key } = await twoSlow(3, 0);
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

  test("a position past the end of a running reply still gets the terminal event, on the generating instance and elsewhere", async () => {
    // A reply that runs until stopped (2,000 tokens, 20 ms apart), so it is still running when followed.
    const { a, b, key } = await twoSlow(2_000, 20);
    const head = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }), 2);
    const { conversation_id: convId, message_id: msgId } = head[0]!.data;
    const [resA, resB] = await Promise.all([
      get(a.base, key, `${eventsPath(convId, msgId)}?after=100000`),
      get(b.base, key, `${eventsPath(convId, msgId)}?after=100000`),
    ]);
    expect([resA.status, resB.status]).toEqual([200, 200]);
    const stop = await post(b.base, key, `/v1/conversations/${convId}/messages/${msgId}/stop`);
    expect(stop.status).toBe(200);
    for (const events of await Promise.all([readEvents(resA), readEvents(resB)]))
      expect(events.map((e) => [e.data.type, e.data.status])).toEqual([["end", "stopped"]]);
  });

  test("a reconnection at or past the terminal event of an ended reply is 204 No Content (EventSource stops reconnecting)", async () => {
    const { a, b, key } = await twoSlow(5, 0);
    const all = await readEvents(await post(a.base, key, "/v1/chat", { message: "go", stream: true }));
    const { conversation_id: convId, message_id: msgId } = all[0]!.data;
    const end = all.at(-1)!;
    expect(end.data.type).toBe("end");
    for (const base of [a.base, b.base]) {
      for (const headers of [{ "last-event-id": String(end.id) }, { "last-event-id": String(end.id + 50) }]) {
        const res = await get(base, key, eventsPath(convId, msgId), headers);
        expect({ status: res.status, body: await res.text() }).toEqual({ status: 204, body: "" });
      }
      const atQuery = await get(base, key, `${eventsPath(convId, msgId)}?after=${end.id}`);
      expect(atQuery.status).toBe(204);
      // The client package takes the 204 as the end: a resume from there yields nothing and returns.
      const client = createClient({ baseUrl: base, apiKey: key });
      const resumed = [];
      for await (const e of client.resume({ conversationId: convId, messageId: msgId, after: end.id })) resumed.push(e);
      expect(resumed).toEqual([]);
      // One short of the end: the terminal event, then the stream closes.
      const last = await readEvents(
        await get(base, key, eventsPath(convId, msgId), { "last-event-id": String(end.id - 1) }),
      );
      expect(last).toEqual([end]);
    }
  });
});

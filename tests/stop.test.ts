/**
 * Stop: from any instance, generation ceases, the partial reply is stored `stopped` and every
 * stream of it ends with `end` `status: "stopped"`.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { scriptedAgent } from "./helpers/agents.ts";
import { harness, listen } from "./helpers/app.ts";
import {
  conversation,
  eventsPath,
  eventually,
  get,
  post,
  readEvents,
  tokensOf,
  twoSlow,
  words,
} from "./helpers/instances.ts";
import { growingSources } from "./helpers/sse.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

describe("stop", () => {
  test("from the other instance: generation ceases, partial reply stored as stopped, every stream ends stopped", async () => {
    const ended = Promise.withResolvers<void>();
    const yielded = { count: 0, ended: ended.resolve };
    const { a, b, key } = await twoSlow(400, 15, yielded);
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
    expect({ status: stopped.status, body }).toMatchObject({
      status: 200,
      body: { id: msgId, conversation_id: convId, status: "stopped" },
    });
    const [events, fa, fb] = await Promise.all([reader, followA, followB]);
    for (const stream of [events, fa, fb])
      expect(stream.at(-1)!.data).toEqual({
        type: "end",
        message_id: msgId,
        status: "stopped",
        usage: null,
        certainty: "no_sources",
      });
    expect(tokensOf(events)).toBe(body.content);
    expect(tokensOf([...events.slice(0, 2), ...fb])).toBe(body.content);
    // Tokens really cease: neither the agent nor the store moves any more.
    const atStop = yielded.count;
    expect(atStop).toBeLessThan(400);
    await ended.promise; // the agent's generator has returned: it can yield nothing more
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
    const { a, b, key } = await twoSlow(5, 0);
    const reply = (await (await post(a.base, key, "/v1/chat", { message: "go" })).json()) as any;
    const res = await post(b.base, key, `/v1/conversations/${reply.conversation_id}/messages/${reply.id}/stop`);
    expect({ status: res.status, body: await res.json() }).toMatchObject({
      status: 200,
      body: { id: reply.id, status: "completed", content: reply.content },
    });
  });

  test("a JSON request whose reply is stopped gets 200 with the partial text and status stopped", async () => {
    const { a, b, key } = await twoSlow(400, 10);
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

  test("a stopped reply keeps the sources its clients were sent (its text cites them): streamed, stored, replayed, as JSON", async () => {
    const [x, y] = ["https://x.test/a", "https://x.test/b"];
    const yielded = { count: 0 };
    // The agent cites two sources, then waits for good before a third it never gets to.
    const agent = scriptedAgent(["Alpha [1]", " beta", " gamma [2]", " delta", " [3]"], {
      growing: { 0: [x], 2: [x, y], 4: [x, y, "https://x.test/c"] },
      gate: { before: 4, open: new Promise(() => {}) },
      yielded,
    });
    const h = await harness({ agent });
    const base = listen(h.app).url;
    const key = await h.key();
    const stopAt = async (count: number) => {
      await eventually(async () => (yielded.count >= count ? true : undefined));
      const list = (await (await get(base, key, "/v1/conversations?limit=1")).json()) as any;
      const convId = list.data[0].id;
      const msgId = (await conversation(base, key, convId)).messages.at(-1).id;
      await post(base, key, `/v1/conversations/${convId}/messages/${msgId}/stop`);
      return { convId, msgId };
    };
    const reading = readEvents(await post(base, key, "/v1/chat", { message: "go", stream: true }));
    const { convId, msgId } = await stopAt(4);
    const events = await reading;
    expect(events.map((e) => e.data.type)).toEqual([
      "start",
      "sources",
      "token",
      "token",
      "sources",
      "token",
      "token",
      "end",
    ]);
    expect(events.at(-1)!.data.status).toBe("stopped");
    expect(growingSources(events.map((e) => e.data))).toEqual([x, y]);
    const stored = (await conversation(base, key, convId)).messages[1];
    expect(stored).toMatchObject({ status: "stopped", content: "Alpha [1] beta gamma [2] delta", sources: [x, y] });
    const replay = await readEvents(await get(base, key, eventsPath(convId, msgId)));
    expect(replay).toEqual(events);
    // The JSON answer, folded from the same events.
    const pending = post(base, key, "/v1/chat", { message: "again", conversation_id: convId });
    await stopAt(8);
    const body = (await (await pending).json()) as any;
    expect(body).toMatchObject({ status: "stopped", content: "Alpha [1] beta gamma [2] delta", sources: [x, y] });
  });
});

/**
 * Leases: a live reply keeps its lease; an expired one is ended `failed` exactly once by any
 * instance, on a sweep or a read; a writer that lost its lease is refused.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Db } from "../src/db/client.ts";
import { createParley } from "../src/mod.ts";
import { createNotifier } from "../src/replies/notify.ts";
import { readEvents as readStored } from "../src/replies/reads.ts";
import { createReplyStore } from "../src/replies/statements.ts";

/** The reply statements on `db`, as one instance runs them (without LISTEN: the test looks at rows). */
const replyStore = (db: Db) => createReplyStore(db, createNotifier(null));

import { scriptedAgent } from "./helpers/agents.ts";
import { testPlugin } from "./helpers/app.ts";
import { conversation, eventually, get, post, readEvents, twoInstances, twoSlow } from "./helpers/instances.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

/**
 * Two instances, a conversation, and a running reply in it whose lease passed a second ago
 * (created `createdAfterMs` after that moment), as a dead instance leaves one.
 */
async function expiredReply(createdAfterMs: number) {
  const { a, b, key } = await twoSlow(1, 0);
  const reply = (await (await post(a.base, key, "/v1/chat", { message: "seed" })).json()) as any;
  const id = `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`;
  const past = Date.now() - 1_000;
  await replyStore(a.h.store.db).create({
    id,
    conversationId: reply.conversation_id,
    createdAt: past + createdAfterMs,
    leaseUntil: past,
    start: '{"type":"start"}',
    also: [],
  });
  return { a, b, key, reply, id };
}

describe("lease", () => {
  test("of many sweeps racing on both instances exactly one ends an expired reply; the late writer is refused", async () => {
    const { a, b, key, reply, id } = await expiredReply(0);
    const swept = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        replyStore((i % 2 ? a : b).h.store.db).expire(Date.now(), i < 5 ? id : undefined),
      ),
    );
    // At most one of them (an instance's periodic sweep may have come first); the events below
    // show it was ended exactly once.
    expect(swept.flat().filter((x) => x === id).length).toBeLessThanOrEqual(1);
    // The instance that held the lease comes back and tries to write: nothing lands.
    const late = await replyStore(a.h.store.db).flush({
      id,
      events: [{ seq: 2, data: '{"type":"token","content":"late"}' }],
      delta: "late",
      lastSeq: 2,
      leaseUntil: Date.now() + 10_000,
    });
    expect(late).toBe("gone");
    const events = await readStored(b.h.store.db, id, 0);
    expect(events.map((e) => JSON.parse(e.data).type)).toEqual(["start", "error"]);
    const conv = await conversation(b.base, key, reply.conversation_id);
    expect(conv.messages.find((m: any) => m.id === id)).toMatchObject({ status: "failed", content: "" });
  });

  test("a swept reply keeps the last sources it stored: its partial text may cite them", async () => {
    const { a, b, key, reply } = await expiredReply(0);
    const id = `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`;
    const store = replyStore(a.h.store.db);
    await store.create({
      id,
      conversationId: reply.conversation_id,
      createdAt: Date.now(),
      leaseUntil: Date.now() + 60_000,
      start: '{"type":"start"}',
      also: [],
    });
    const data = [
      { type: "sources", sources: ["https://x.test/a"] },
      { type: "token", content: "A [1]" },
      { type: "sources", sources: ["https://x.test/a", "https://x.test/b"] },
      { type: "token", content: " b [2]" },
    ];
    const events = data.map((d, i) => ({ seq: i + 2, data: JSON.stringify(d) }));
    const leaseUntil = Date.now() + 60_000;
    expect(await store.flush({ id, events, delta: "A [1] b [2]", lastSeq: 5, leaseUntil })).toBe("running");
    // The instance dies: a sweep after its lease ends the reply.
    expect(await store.expire(Date.now() + 120_000, id)).toEqual([id]);
    const conv = await conversation(b.base, key, reply.conversation_id);
    expect(conv.messages.find((m: any) => m.id === id)).toMatchObject({
      status: "failed",
      content: "A [1] b [2]",
      sources: ["https://x.test/a", "https://x.test/b"],
    });
  });

  test("a live reply keeps its lease while its agent is silent for longer than the lease", async () => {
    // Lease 1 s on both instances (sweeping every 0.5 s); the agent says nothing for 1.6 s: a lease
    // left unrenewed would have passed, and B's reads (every 0.1 s) would end the reply `failed`.
    const pair = await twoInstances(scriptedAgent(["late", " but alive"], { silenceMs: 1_600 }), {
      replyLeaseMs: 1_000,
    });
    const { a, b, key } = pair;
    const reading = readEvents(await post(a.base, key, "/v1/chat", { message: "think first", stream: true }));
    // Meanwhile B reads the conversation again and again: a read sweeps an expired reply at once.
    let done = false;
    const statuses = new Set<string>();
    const polling = (async () => {
      const list = await eventually(
        async () => ((await (await get(b.base, key, "/v1/conversations?limit=1")).json()) as any).data[0],
      );
      while (!done) {
        statuses.add((await conversation(b.base, key, list.id)).messages[1]?.status ?? "none");
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const events = await reading;
    done = true;
    await polling;
    expect([...statuses]).not.toContain("failed");
    expect(statuses.has("in_progress")).toBe(true);
    expect(events.at(-1)!.data).toMatchObject({ type: "end", status: "completed" });
    const stored = (await conversation(b.base, key, events[0]!.data.conversation_id)).messages[1];
    expect(stored).toMatchObject({ status: "completed", content: "late but alive" });
  });

  test("a reply whose lease passed reads as failed on GET /v1/conversations/:id at once", async () => {
    const { a, b, key, reply, id } = await expiredReply(5_000);
    const conv = await conversation(b.base, key, reply.conversation_id);
    expect(conv.messages.find((m: any) => m.id === id)).toMatchObject({ status: "failed" });
  });
});

describe("lease options", () => {
  test("a host app's nonsense lease or flush interval is refused at start (never a spinning timer)", async () => {
    const { a } = await twoSlow(1, 0);
    for (const options of [{ replyLeaseMs: 0 }, { replyLeaseMs: 999 }, { replyFlushMs: 5 }, { replyFlushMs: 1.5 }]) {
      expect(() => createParley({ store: a.h.store, options })).toThrow(
        /options\.reply(Lease|Flush)Ms must be an integer/,
      );
    }
    expect(() => testPlugin({ store: a.h.store, options: { replyLeaseMs: 1_000, replyFlushMs: 10 } })).not.toThrow();
  });
});

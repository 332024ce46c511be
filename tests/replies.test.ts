/**
 * replies/ against the store: every write path goes through the one after-write dispatch, so
 * this process's followers hear every write even without LISTEN (PGlite). The sweep used to be
 * the exception: `sweepExpired` notified other instances through pg_notify but never called the
 * in-process notify, so a follower on PGlite learnt of a swept reply only at its next poll.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { newId } from "../src/primitives.ts";
import { ORPHANED_EVENT } from "../src/replies/event-log.ts";
import { createNotifier, eventsTopic, stopTopic } from "../src/replies/notify.ts";
import { readEvents } from "../src/replies/reads.ts";
import { createReplyStore } from "../src/replies/statements.ts";
import { harness } from "./helpers/app.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

describe("the after-write dispatch", () => {
  test("create, flush, stop, sweep and finish each reach this process's subscribers", async () => {
    const h = await harness();
    const key = await h.key();
    const seed = await h.call("POST", "/v1/chat", { key, json: { message: "seed" } });
    const notifier = createNotifier(null); // in process, as on PGlite
    const store = createReplyStore(h.store.db, notifier);
    const heard: string[] = [];
    const [swept, finished] = [newId("msg"), newId("msg")];
    for (const id of [swept, finished]) {
      notifier.on(eventsTopic(id), () => heard.push(`events ${id === swept ? "swept" : "finished"}`));
      notifier.on(stopTopic(id), () => heard.push(`stop ${id === swept ? "swept" : "finished"}`));
    }
    const past = Date.now() - 1_000;
    // Both hold a lease no periodic sweep (this file's apps, or another instance's on PostgreSQL)
    // can reach while the test runs; the sweep below is told a time past `swept`'s.
    const lease = Date.now() + 60_000;
    const start = (id: string) => ({
      id,
      conversationId: seed.json.conversation_id,
      createdAt: past,
      leaseUntil: id === swept ? lease : lease + 60_000,
      start: '{"type":"start"}',
      also: [],
    });
    await store.create(start(swept));
    await store.create(start(finished));
    expect(heard).toEqual(["events swept", "events finished"]);
    const token = { seq: 2, data: '{"type":"token","content":"x"}' };
    expect(await store.flush({ id: swept, events: [token], delta: "x", lastSeq: 2, leaseUntil: lease })).toBe(
      "running",
    );
    expect(heard.at(-1)).toBe("events swept");
    expect(await store.requestStop(swept)).toBe(true);
    expect(heard.at(-1)).toBe("stop swept");
    // The sweep: the reply ends failed with the orphaned event, and its followers here hear it at once.
    heard.length = 0;
    const afterLease = lease + 1_000;
    expect(await store.expire(afterLease, swept)).toEqual([swept]);
    expect(heard).toEqual(["events swept"]);
    expect((await readEvents(h.store.db, swept, 0)).map((e) => e.data).at(-1)).toBe(ORPHANED_EVENT);
    // A write that changes nothing dispatches nothing.
    expect(await store.expire(afterLease, swept)).toEqual([]);
    expect(await store.requestStop(swept)).toBe(false);
    expect(heard).toEqual(["events swept"]);
    const end = { seq: 2, data: '{"type":"end"}' };
    const finish = { id: finished, events: [end], delta: "", lastSeq: 2, status: "completed" as const };
    expect(await store.finish({ ...finish, sources: [], usage: null, certainty: null, also: [] })).toBe(true);
    expect(heard).toEqual(["events swept", "events finished"]);
  });
});

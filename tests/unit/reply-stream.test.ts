/** ReplyStream: one reader, every event after its position once, the terminal one last, then it lets go. */
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../src/contract/events.ts";
import { ApiError } from "../../src/http/errors.ts";
import { KeepAlive } from "../../src/http/keep-alive.ts";
import { EventLog, type Sequenced } from "../../src/replies/event-log.ts";
import { ReplayPager } from "../../src/replies/replay.ts";
import { ReplyStream, sseOf } from "../../src/replies/stream.ts";

const start: StreamEvent = { type: "start", conversation_id: "conv_1", message_id: "msg_1" };
const token = (content: string): StreamEvent => ({ type: "token", content });
const end: StreamEvent = { type: "end", message_id: "msg_1", status: "completed", usage: null };
/** A page of stored events as reads.ts's `readPage` gives it: `seq` and `data` on alternate lines. */
const page = (events: { seq: number; data: string }[]) => ({
  events: events.map((e) => `${e.seq}\n${e.data}`).join("\n"),
  last: events.at(-1)?.seq ?? null,
  count: events.length,
});
const stored = (events: StreamEvent[]) => events.map((event, i) => ({ seq: i + 1, data: JSON.stringify(event) }));

/** A stream of reply `msg_1` over `log` (live) or over pages read by `read` (stored, pages of 2). */
function streamOf(o: { log?: EventLog; read?: ConstructorParameters<typeof ReplayPager>[0]; after?: number }) {
  const pager = new ReplayPager(o.read ?? (async () => page([])), 2);
  const origins = { live: () => o.log ?? new EventLog(), pager, sse: sseOf(new KeepAlive(60_000)) };
  return new ReplyStream(origins, "msg_1", o.after ?? 0, o.read !== undefined);
}

describe("ReplyStream", () => {
  test("live: the events after the position, then the live ones; it lets go of the log after the terminal one", async () => {
    const log = new EventLog();
    for (const [i, event] of [start, token("a"), token("b")].entries()) log.push({ seq: i + 1, event });
    const seen: number[] = [];
    streamOf({ log, after: 1 }).subscribe((e) => void seen.push(e.seq));
    log.push({ seq: 4, event: token("c") });
    log.push({ seq: 5, event: end });
    expect(seen).toEqual([2, 3, 4, 5]);
    await Promise.resolve();
    expect(log.followers).toBe(0);
  });

  test("a listener that has had enough stops it before the end; a stream has one reader", async () => {
    const log = new EventLog();
    log.push({ seq: 1, event: start });
    const stream = streamOf({ log });
    const seen: string[] = [];
    stream.subscribe((e) => {
      seen.push(e.event.type);
      return e.event.type === "token";
    });
    log.push({ seq: 2, event: token("a") });
    log.push({ seq: 3, event: token("b") });
    expect(seen).toEqual(["start", "token"]);
    await Promise.resolve();
    expect(log.followers).toBe(0);
    expect(() => stream.subscribe(() => {})).toThrow("one reader");
  });

  test("outcome: the events folded; a run's own failure is thrown as it is, a stored one rebuilt", async () => {
    const log = new EventLog();
    const outcome = streamOf({ log }).outcome();
    const sources: StreamEvent = { type: "sources", sources: ["https://a.test"] };
    for (const [i, event] of [start, token("Hello"), token(" [1]"), sources, end].entries())
      log.push({ seq: i + 1, event });
    expect(await outcome).toEqual({
      id: "msg_1",
      conversationId: "conv_1",
      content: "Hello [1]",
      sources: ["https://a.test"],
      status: "completed",
      usage: null,
      certainty: null,
    });

    const failure = new ApiError("service_unavailable", "Down.", { headers: { "retry-after": "2" } });
    const failed = new EventLog();
    failed.push({ seq: 1, event: start });
    failed.push({ seq: 2, event: { type: "error", error: failure.toPayload() }, failure } as Sequenced);
    expect(
      await streamOf({ log: failed })
        .outcome()
        .catch((e) => e),
    ).toBe(failure);

    const rebuilt = await streamOf({
      read: async () => page(stored([start, { type: "error", error: failure.toPayload() }])),
    })
      .outcome()
      .catch((e) => e);
    expect(rebuilt).toBeInstanceOf(ApiError);
    expect(rebuilt).not.toBe(failure);
    expect(rebuilt).toMatchObject({ code: "service_unavailable", message: "Down." });
  });

  test("stored: every page after the position, in order, through the pager", async () => {
    const events = [start, token("a"), token("b"), token("c"), end];
    const reads: number[] = [];
    const read = async (_id: string, after: number, limit: number) => {
      reads.push(after);
      return page(
        stored(events)
          .filter((e) => e.seq > after)
          .slice(0, limit),
      );
    };
    const seen: number[] = [];
    const stream = streamOf({ read, after: 1 });
    const ended = new Promise<void>((resolve) =>
      stream.subscribe((e) => {
        seen.push(e.seq);
        if (e.event.type === "end") resolve();
      }),
    );
    await ended;
    expect(seen).toEqual([2, 3, 4, 5]);
    expect(reads).toEqual([1, 2, 4]); // aligned pages of 2
  });

  test("stored: a failed read ends it with the store's error; pages without a terminal event (deleted) with not_found", async () => {
    const down = streamOf({ read: () => Promise.reject(new Error("boom")) });
    expect(await down.outcome().catch((e) => e)).toMatchObject({ code: "internal_error" });
    const gone = streamOf({ read: async () => page([]) });
    expect(await gone.outcome().catch((e) => e)).toMatchObject({ code: "not_found" });
  });

  test("ended: true at the terminal event, false when the time runs out first", async () => {
    const log = new EventLog();
    log.push({ seq: 1, event: start });
    expect(await streamOf({ log }).ended(20)).toBe(false);
    expect(log.followers).toBe(0);
    const ending = streamOf({ log }).ended(5_000);
    log.push({ seq: 2, event: end });
    expect(await ending).toBe(true);
  });
});

/** The event log Run and Tail share: replay after a cursor, fan-out, the terminal event always delivered. */
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../src/contract/events.ts";
import { EventLog, type Sequenced } from "../../src/replies/event-log.ts";

const token = (seq: number): Sequenced => ({ seq, event: { type: "token", content: `t${seq}` } });
const end: StreamEvent = { type: "end", message_id: "msg_x", status: "completed", usage: null };

describe("EventLog", () => {
  test("replays the events after the cursor, then forwards new ones once each", () => {
    const log = new EventLog();
    for (const seq of [1, 2, 3]) log.push(token(seq));
    const seen: number[] = [];
    log.subscribe((e) => seen.push(e.seq), 1);
    log.push(token(4));
    log.push(token(4)); // a duplicate (a tail reading twice) is ignored
    log.push(token(3)); // and so is an older one
    expect(seen).toEqual([2, 3, 4]);
    expect(log.lastSeq).toBe(4);
  });

  test("a listener whose cursor is ahead skips events up to it, but never the terminal event", () => {
    const log = new EventLog();
    log.push(token(1));
    const seen: number[] = [];
    log.subscribe((e) => seen.push(e.seq), 10);
    log.push(token(2));
    expect(seen).toEqual([]);
    log.push({ seq: 3, event: end });
    expect(seen).toEqual([3]);
    expect(log.ended).toBe(true);
    expect(log.followers).toBe(0);
    // After the end: a subscriber gets the terminal event at once, whatever its cursor, and is not kept.
    const late: number[] = [];
    log.subscribe((e) => late.push(e.seq), 99);
    expect(late).toEqual([3]);
    expect(log.followers).toBe(0);
    expect(log.push(token(4))).toBe(false);
  });

  test("a listener that throws is dropped; the others go on", () => {
    const log = new EventLog();
    const seen: number[] = [];
    log.subscribe(() => {
      throw new Error("gone");
    });
    log.subscribe((e) => seen.push(e.seq));
    log.push(token(1));
    log.push(token(2));
    expect(seen).toEqual([1, 2]);
    expect(log.followers).toBe(1);
  });

  test("unsubscribing stops delivery", () => {
    const log = new EventLog();
    const seen: number[] = [];
    const off = log.subscribe((e) => seen.push(e.seq));
    log.push(token(1));
    off();
    log.push(token(2));
    expect(seen).toEqual([1]);
  });
});

/** The write batcher over a fake store and a fake clock. */
import { describe, expect, test } from "bun:test";
import { type Batch, type Clock, WriteBatcher } from "../../src/replies/generate.ts";

/** A clock whose timers fire only when the test says so. */
function fakeClock() {
  const timers = new Map<number, () => void>();
  let next = 0;
  const clock: Clock = {
    setTimeout: (fn) => {
      timers.set(++next, fn);
      return next;
    },
    clearTimeout: (h) => void timers.delete(h as number),
  };
  const fire = () => {
    const due = [...timers.values()];
    timers.clear();
    for (const fn of due) fn();
  };
  return { clock, fire, pending: () => timers.size };
}

/** A store whose writes wait until released; it records each statement. */
function slowStore() {
  const writes: Batch[] = [];
  let release: () => void = () => {};
  const write = (b: Batch) => {
    writes.push(b);
    return new Promise<void>((r) => (release = r));
  };
  return { writes, write, release: () => release() };
}

const ev = (seq: number) => ({ seq, data: `{"seq":${seq}}` });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("WriteBatcher", () => {
  test("events wait for the interval, then go in one write", async () => {
    const { clock, fire, pending } = fakeClock();
    const writes: Batch[] = [];
    const b = new WriteBatcher(async (x) => void writes.push(x), { flushMs: 100, storedSeq: 1, clock });
    b.add(ev(2), "a");
    b.add(ev(3), "b");
    expect(writes).toHaveLength(0);
    expect(pending()).toBe(1); // one timer, however many events
    fire();
    await tick();
    expect(writes).toEqual([{ events: [ev(2), ev(3)], delta: "ab", lastSeq: 3 }]);
  });

  test("N events during a slow write give one statement, not N", async () => {
    const { clock, fire } = fakeClock();
    const store = slowStore();
    const b = new WriteBatcher(store.write, { flushMs: 100, storedSeq: 1, clock });
    b.add(ev(2), "x");
    fire();
    await tick();
    expect(store.writes).toHaveLength(1); // under way, not finished
    for (let seq = 3; seq < 103; seq++) {
      b.add(ev(seq), "y");
      fire(); // every interval passes while the first write is slow
    }
    store.release();
    await tick();
    await tick();
    expect(store.writes).toHaveLength(2);
    expect(store.writes[1]!.events).toHaveLength(100);
    expect(store.writes[1]!.delta).toBe("y".repeat(100));
    store.release();
    const rest = await b.close();
    expect(rest).toEqual({ events: [], delta: "", lastSeq: 102 });
  });

  test("maxEvents waiting write at once, whatever the interval", async () => {
    const { clock } = fakeClock();
    const writes: Batch[] = [];
    const b = new WriteBatcher(async (x) => void writes.push(x), { flushMs: 100, maxEvents: 3, clock });
    for (const seq of [1, 2, 3]) b.add(ev(seq));
    await tick();
    expect(writes.map((w) => w.events.length)).toEqual([3]);
  });

  test("a failed write keeps its batch for the next one, in order", async () => {
    const { clock, fire } = fakeClock();
    const writes: Batch[] = [];
    const errors: unknown[] = [];
    let fail = true;
    const b = new WriteBatcher(
      async (x) => {
        if (fail) throw new Error("store away");
        writes.push(x);
      },
      { flushMs: 100, storedSeq: 1, clock, onError: (e) => errors.push(e) },
    );
    b.add(ev(2), "a");
    fire();
    await tick();
    expect(errors).toHaveLength(1);
    fail = false;
    b.add(ev(3), "b");
    fire();
    await tick();
    expect(writes).toEqual([{ events: [ev(2), ev(3)], delta: "ab", lastSeq: 3 }]);
  });

  test("close waits for the write under way and hands back what was never written", async () => {
    const { clock, fire, pending } = fakeClock();
    const store = slowStore();
    const b = new WriteBatcher(store.write, { flushMs: 100, storedSeq: 1, clock });
    b.add(ev(2), "a");
    fire();
    await tick();
    b.add(ev(3), "b");
    const closing = b.close();
    expect(pending()).toBe(0); // its timer is gone
    store.release();
    expect(await closing).toEqual({ events: [ev(3)], delta: "b", lastSeq: 3 });
    b.add(ev(4), "c"); // after close: nothing is queued or written
    expect(store.writes).toHaveLength(1);
  });
});

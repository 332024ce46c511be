import { describe, expect, test } from "bun:test";
import { KeepAlive, type KeptAlive } from "../../src/http/keep-alive.ts";

/** A stream that records its pings (and counts each as a write). */
const stream = (lastWrite: number) => {
  const pings: number[] = [];
  const s: KeptAlive & { pings: number[] } = {
    lastWrite,
    pings,
    ping(now) {
      pings.push(now);
      s.lastWrite = now;
    },
  };
  return s;
};

describe("KeepAlive (one timer for every open stream)", () => {
  test("a stream is pinged before it has been quiet for a whole interval, whenever it last wrote", () => {
    const k = new KeepAlive(1_000);
    // Streams that last wrote at every offset within one tick of the timeline; ticks every 250 ms.
    const streams = Array.from({ length: 50 }, (_, i) => stream(i * 5));
    for (const s of streams) k.add(s);
    k.close(); // driven by hand below
    for (let now = 0; now <= 5_000; now += k.tickMs) k.tick(now);
    for (const [i, s] of streams.entries()) {
      const writes = [i * 5, ...s.pings];
      const gaps = writes.slice(1).map((t, j) => t - writes[j]!);
      expect({ i, max: Math.max(...gaps) < 1_000, min: Math.min(...gaps) >= 1_000 - k.tickMs }).toEqual({
        i,
        max: true,
        min: true,
      });
    }
  });

  test("a stream that writes events is not pinged", () => {
    const k = new KeepAlive(1_000);
    const s = stream(0);
    k.add(s);
    k.close();
    for (let now = 0; now <= 3_000; now += k.tickMs) {
      s.lastWrite = now; // an event at every tick
      k.tick(now);
    }
    expect(s.pings).toEqual([]);
  });

  test("the timer runs only while a stream is open, and pings it meanwhile", async () => {
    const k = new KeepAlive(100);
    expect(k.ticking).toBe(false);
    const pinged = Promise.withResolvers<void>();
    const s: KeptAlive = { lastWrite: Date.now(), ping: () => pinged.resolve() };
    k.add(s);
    expect(k.ticking).toBe(true);
    await pinged.promise;
    k.delete(s);
    expect({ size: k.size, ticking: k.ticking }).toEqual({ size: 0, ticking: false });
  });

  test("a stream whose ping throws is dropped; the others are still pinged", () => {
    const k = new KeepAlive(1_000);
    const broken: KeptAlive = {
      lastWrite: 0,
      ping() {
        throw new Error("closed");
      },
    };
    const ok = stream(0);
    k.add(broken);
    k.add(ok);
    k.tick(1_000);
    k.close();
    expect({ size: k.size, pings: ok.pings }).toEqual({ size: 1, pings: [1_000] });
  });
});

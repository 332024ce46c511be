/** The replay pager over a fake reader of contiguous events: shared, aligned, bounded pages. */
import { describe, expect, test } from "bun:test";
import type { StreamSummary } from "../../src/http/sse.ts";
import { type PageReader, ReplayPager } from "../../src/replies/replay.ts";

/** A reply of `total` events (seq 1..total) whose reads are recorded; each frame is ~`size` bytes. */
function fakeReply(total: number, size = 20) {
  const reads: [number, number][] = [];
  const read: PageReader = async (_id, after, limit) => {
    reads.push([after, limit]);
    await Promise.resolve();
    const seqs = Array.from({ length: Math.max(0, Math.min(limit, total - after)) }, (_, i) => after + 1 + i);
    const data = (s: number) => (s === total ? '{"type":"end","status":"completed"}' : "x".repeat(size));
    const events = seqs.map((s) => `${s}\n${data(s)}`).join("\n");
    return { events, last: seqs.at(-1) ?? null, count: seqs.length };
  };
  return { read, reads };
}

async function readAll(res: Response): Promise<number[]> {
  const text = await res.text();
  return [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("ReplayPager", () => {
  test("one reader gets every event after its position, once, in order", async () => {
    const { read } = fakeReply(1_234);
    const pager = new ReplayPager(read, 100);
    expect(await readAll(pager.response("r", 0))).toEqual(range(1, 1_234));
    expect(await readAll(pager.response("r", 1_000))).toEqual(range(1_001, 1_234));
    expect(await readAll(pager.response("r", 1_233))).toEqual([1_234]);
  });

  test("readers at once share pages: each page read from the store once, not once per reader", async () => {
    const { read, reads } = fakeReply(1_000);
    const pager = new ReplayPager(read, 100);
    const all = await Promise.all(Array.from({ length: 20 }, () => readAll(pager.response("r", 0))));
    for (const got of all) expect(got).toEqual(range(1, 1_000));
    expect(reads.length).toBe(11); // 10 full pages and the empty one that finds the end
  });

  test("pages are aligned: a reader that started mid-page meets the others on their pages", async () => {
    const { read, reads } = fakeReply(1_000);
    const pager = new ReplayPager(read, 100);
    await readAll(pager.response("r", 0));
    reads.length = 0;
    expect(await readAll(pager.response("r", 37))).toEqual(range(38, 1_000));
    // Only its first, partial page was read (then 100, 200, … were cached), and the empty page
    // past the end, which is never kept.
    expect(reads).toEqual([
      [37, 63],
      [1_000, 100],
    ]);
  });

  test("the cache is bounded in bytes; least recently used pages go first", async () => {
    const { read, reads } = fakeReply(1_000, 1_000); // ~1 KB frames: 100 KB pages
    const pager = new ReplayPager(read, 100, 250_000);
    await readAll(pager.response("r", 0));
    expect(pager.cachedBytes).toBeLessThanOrEqual(250_000);
    expect(pager.cachedBytes).toBeGreaterThan(0);
    reads.length = 0;
    await readAll(pager.response("r", 0));
    expect(reads.length).toBeGreaterThan(5); // the early pages were evicted and read again
  });

  test("the stream's tally: every event, and the terminal status even when it ends a full page", async () => {
    for (const total of [150, 200]) {
      const { read } = fakeReply(total);
      const res = new ReplayPager(read, 100).response("r", 0);
      const ended = new Promise<StreamSummary>((resolve) => res.tally.onEnd(resolve));
      const text = await res.text();
      expect(await ended).toEqual({ events: total, reply_status: "completed", bytes: Buffer.byteLength(text) });
    }
  });

  test("a read that fails ends the stream's tally as an error (an errored stream is never cancelled)", async () => {
    const res = new ReplayPager(() => Promise.reject(new Error("store down")), 100).response("r", 0);
    const ended = new Promise<StreamSummary>((resolve) => res.tally.onEnd(resolve));
    await expect(res.text()).rejects.toThrow("store down");
    expect((await ended).reply_status).toBe("error");
  });

  test("a failed read is not cached: the next reader reads again", async () => {
    let fail = true;
    const { read } = fakeReply(10);
    const pager = new ReplayPager(
      (id, after, limit) => (fail ? Promise.reject(new Error("down")) : read(id, after, limit)),
      100,
    );
    await expect(pager.read("r", 0)).rejects.toThrow("down");
    fail = false;
    expect((await pager.read("r", 0)).count).toBe(10);
  });
});

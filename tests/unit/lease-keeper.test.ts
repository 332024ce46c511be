/** The lease keeper: one renewal for every kept reply; stop flags and lost replies reach their runs. */
import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/config/logger.ts";
import { type Leased, LeaseKeeper } from "../../src/replies/live-runs.ts";

function run(id: string) {
  const calls: string[] = [];
  const leased: Leased = { id, stop: () => calls.push("stop"), lost: () => calls.push("lost") };
  return { leased, calls };
}

describe("LeaseKeeper", () => {
  test("one statement renews every kept reply; a stop flag stops its run, a missing row tells it it is lost", async () => {
    const statements: { ids: string[]; until: number }[] = [];
    const keeper = new LeaseKeeper({
      renew: async (ids, until) => {
        statements.push({ ids, until });
        return [
          { id: "a", stop_requested: false },
          { id: "b", stop_requested: true },
        ];
      },
      now: () => 1_000,
      logger: createLogger("silent"),
      leaseMs: 10_000,
    });
    const [a, b, c] = [run("a"), run("b"), run("c")];
    for (const r of [a, b, c]) keeper.add(r.leased);
    await keeper.beat();
    expect(statements).toEqual([{ ids: ["a", "b", "c"], until: 11_000 }]);
    expect([a.calls, b.calls, c.calls]).toEqual([[], ["stop"], ["lost"]]);
    expect(keeper.everyMs).toBe(2_500);
    for (const r of [a, b, c]) keeper.remove(r.leased.id);
    expect(keeper.size).toBe(0);
    await keeper.beat(); // nothing kept: no statement
    expect(statements).toHaveLength(1);
  });

  test("a failed renewal is logged and retried at the next beat; a run removed meanwhile is left alone", async () => {
    let fail = true;
    const warnings: string[] = [];
    const logger = { ...createLogger("silent"), warn: (_: unknown, msg: string) => void warnings.push(msg) };
    const keeper = new LeaseKeeper({
      renew: async () => {
        if (fail) throw new Error("store away");
        return [];
      },
      now: () => 0,
      logger: logger as never,
      leaseMs: 1_000,
    });
    const a = run("a");
    keeper.add(a.leased);
    await keeper.beat();
    expect(warnings).toEqual(["renewing the replies' leases failed"]);
    expect(a.calls).toEqual([]);
    fail = false;
    await keeper.beat();
    expect(a.calls).toEqual(["lost"]);
    keeper.close();
  });

  test("the timer runs only while some reply is kept", async () => {
    let beats = 0;
    const keeper = new LeaseKeeper({
      renew: async (ids) => {
        beats++;
        return ids.map((id) => ({ id, stop_requested: false }));
      },
      now: () => 0,
      logger: createLogger("silent"),
      leaseMs: 200, // a beat every 50 ms
    });
    keeper.add(run("a").leased);
    const deadline = Date.now() + 2_000;
    while (beats < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(beats).toBeGreaterThanOrEqual(2);
    keeper.remove("a");
    const after = beats;
    await new Promise((r) => setTimeout(r, 150));
    expect(beats).toBe(after);
  });
});

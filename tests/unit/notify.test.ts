/** The notifier: topics, in-process dispatch where there is no LISTEN, and its LISTEN's lifetime. */
import { describe, expect, test } from "bun:test";
import { CHANNEL, createNotifier, eventsTopic, type PgListen, stopTopic } from "../../src/replies/notify.ts";

/** A postgres.js-like client: records LISTEN/UNLISTEN and lets the test deliver payloads. */
function fakePg() {
  const state = { listens: 0, unlistens: 0, deliver: (_: string) => {} };
  const pg: PgListen = {
    async listen(channel, fn) {
      expect(channel).toBe(CHANNEL);
      state.listens++;
      state.deliver = fn;
      return { unlisten: async () => void state.unlistens++ };
    },
  };
  return { pg, state };
}

describe("notifier", () => {
  test("topics are named per kind and reply", () => {
    expect(eventsTopic("msg_1")).toBe("e:msg_1");
    expect(stopTopic("msg_1")).toBe("s:msg_1");
  });

  test("without LISTEN (PGlite), local() reaches the subscribers of that topic only", async () => {
    const n = createNotifier(null);
    const seen: string[] = [];
    const a = () => void seen.push("a");
    n.on(eventsTopic("a"), a);
    n.on(eventsTopic("b"), () => seen.push("b"));
    n.on(eventsTopic("a"), () => {
      throw new Error("one subscriber's failure is its own");
    });
    await n.ready;
    n.local(eventsTopic("a"));
    n.off(eventsTopic("a"), a);
    n.local(eventsTopic("a"));
    expect(seen).toEqual(["a"]);
  });

  test("with LISTEN, payloads are dispatched, local() does nothing (the NOTIFY comes back), one LISTEN, ended by close()", async () => {
    const { pg, state } = fakePg();
    const n = createNotifier(pg);
    const seen: string[] = [];
    n.on(stopTopic("a"), () => seen.push("stop"));
    n.on(eventsTopic("a"), () => seen.push("events"));
    await n.ready;
    expect(state.listens).toBe(1);
    n.local(stopTopic("a"));
    expect(seen).toEqual([]);
    state.deliver(stopTopic("a"));
    state.deliver(eventsTopic("a"));
    expect(seen).toEqual(["stop", "events"]);
    await n.close();
    expect(state.unlistens).toBe(1);
    state.deliver(stopTopic("a"));
    expect(seen).toHaveLength(2);
  });

  test("a failed LISTEN is tried again on next use", async () => {
    let tries = 0;
    const n = createNotifier({
      async listen() {
        if (++tries === 1) throw new Error("no connection");
        return { unlisten: async () => {} };
      },
    });
    await expect(n.ready).rejects.toThrow("no connection");
    await n.ready;
    expect(tries).toBe(2);
    await n.close();
  });
});

/**
 * Lifetimes: `createParley` builds its long-lived objects (notifier, lease keeper, tails,
 * sweeper, registry) once per instance and `close()` ends them; importing the library changes
 * no global state.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Agent } from "../src/agent/types.ts";
import { createApp } from "../src/app/app.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { createLogger } from "../src/config/logger.ts";
import type { ChatReply, Reply as StoppedReply } from "../src/contract/index.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { read } from "./helpers/app.ts";
import { words } from "./helpers/instances.ts";
import { readEvents } from "./helpers/sse.ts";
import { onPostgres, testStore } from "./helpers/store.ts";

setDefaultTimeout(60_000); // a process start under load, two replies

const SRC = join(import.meta.dir, "../src/");

/** Timers created by code under src/ (the frame that called setTimeout/setInterval) and still pending. */
function trackTimers() {
  const g = globalThis as unknown as Record<string, (...a: unknown[]) => unknown>;
  const original = {
    setTimeout: g.setTimeout!,
    setInterval: g.setInterval!,
    clearTimeout: g.clearTimeout!,
    clearInterval: g.clearInterval!,
  };
  const live = new Map<unknown, string>();
  const caller = () => new Error().stack?.split("\n")[3] ?? "";
  g.setTimeout = (fn: unknown, ms: unknown, ...args: unknown[]) => {
    const where = caller();
    const handle: unknown = original.setTimeout(
      (...a: unknown[]) => {
        live.delete(handle);
        (fn as (...a: unknown[]) => void)(...a);
      },
      ms,
      ...args,
    );
    if (where.includes(SRC)) live.set(handle, where);
    return handle;
  };
  g.setInterval = (fn: unknown, ms: unknown, ...args: unknown[]) => {
    const handle = original.setInterval(fn, ms, ...args);
    const where = caller();
    if (where.includes(SRC)) live.set(handle, where);
    return handle;
  };
  g.clearTimeout = (h: unknown) => {
    live.delete(h);
    return original.clearTimeout(h);
  };
  g.clearInterval = (h: unknown) => {
    live.delete(h);
    return original.clearInterval(h);
  };
  return { live: () => [...live.values()], restore: () => Object.assign(g, original) };
}

const post = (app: { handle(r: Request): Promise<Response> }, key: string, path: string, body?: unknown) =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
const get = (app: { handle(r: Request): Promise<Response> }, key: string, path: string) =>
  app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } }));

describe("createParley lifetimes", () => {
  test("two instances on one store work independently; after close() no timer or LISTEN is left", async () => {
    const store = await testStore();
    const { secret: key } = await createKey(store.db, { name: "lifetimes", plan: "pro" });
    // The first two replies wait before word 20 until the test opens their gate: each is certainly
    // running while B follows or stops it, and goes on as soon as the test lets it.
    const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
    let replies = 0;
    const agent: Agent = {
      respond: (input) => {
        const open = gates[replies++]?.promise ?? Promise.resolve();
        return scriptedAgent(words(40), { gate: { before: 20, open } }).respond(input);
      },
    };
    const timers = trackTimers();
    try {
      const make = () =>
        createApp({
          store,
          agent,
          logger: createLogger("silent"),
          // Followers poll every 50 ms, as twoInstances' do: B reads A's reply (and its end, once
          // stopped) from the store, on PGlite without A's notifications.
          options: { replyLeaseMs: 1_000, replyPollMs: 50 },
        });
      const [a, b] = [make(), make()];
      // A generates; B follows it from the database while it runs; both see the same events.
      const head = await readEvents(await post(a, key, "/v1/chat", { message: "one", stream: true }), 2);
      const { conversation_id: convId, message_id: msgId } = head[0]!.data;
      // Positive control: while a reply runs, the tracker sees src/'s timers (the lease keeper,
      // the sweeper, the write batcher), so the empty list after close() means something.
      expect(timers.live().length).toBeGreaterThan(0);
      const path = `/v1/conversations/${convId}/messages/${msgId}`;
      const following = await get(b, key, `${path}/events`);
      gates[0]!.resolve();
      const followed = await readEvents(following);
      expect(followed.at(-1)!.data).toMatchObject({ type: "end", status: "completed" });
      expect(followed.map((e) => e.id)).toEqual(followed.map((_, i) => i + 1));
      // B stops a reply A generates.
      const second = await readEvents(await post(a, key, "/v1/chat", { message: "two", stream: true }), 1);
      const stopPath = `/v1/conversations/${second[0]!.data.conversation_id}/messages/${second[0]!.data.message_id}/stop`;
      const stopped = await read<StoppedReply>(await post(b, key, stopPath));
      gates[1]!.resolve(); // the stopped agent then sees its signal aborted
      expect({ status: stopped.status, reply: stopped.json?.status }).toEqual({ status: 200, reply: "stopped" });
      // Closing A leaves B serving.
      await a.parley.close();
      const alone = await read<ChatReply>(await post(b, key, "/v1/chat", { message: "three" }));
      expect({ status: alone.status, reply: alone.json?.status }).toEqual({ status: 200, reply: "completed" });
      await b.parley.close();
      await b.parley.close(); // idempotent
      await new Promise((r) => setTimeout(r, 50)); // timers due now (zero-delay yields) fire
      expect(timers.live()).toEqual([]);
      if (onPostgres) {
        // postgres.js keeps its listener connection for the pool, but no LISTEN remains on it.
        const rows = (await store.db.execute(
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
        )) as unknown as { n: number }[];
        expect(rows[0]!.n).toBe(0);
      }
    } finally {
      timers.restore();
    }
  });

  test("importing the library changes no global state (only zod's own registry appears)", async () => {
    const script = `const before = new Set(Object.getOwnPropertyNames(globalThis));
await import(${JSON.stringify(join(SRC, "mod.ts"))});
console.log(JSON.stringify(Object.getOwnPropertyNames(globalThis).filter((k) => !before.has(k))));`;
    const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const added = JSON.parse(out) as string[];
    expect(added.filter((k) => !k.startsWith("__zod_"))).toEqual([]);
  });
});

/**
 * kill -9 of the instance generating a reply: a real child process (tests/fixtures/slow-server.ts,
 * the real `serve` with a slow agent and a 1 s lease). Another instance — on PostgreSQL one
 * running alongside, on PGlite the next process to open the folder — ends the reply as `failed`
 * with what was stored, and a client resuming it hears so.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { loadEnv } from "../../src/config/env.ts";
import type { Store } from "../../src/db/client.ts";
import { openStoreFromEnv } from "../../src/runtime/store.ts";
import { harness, listen } from "../helpers/app.ts";
import { eventsPath, get, post, readEvents, tokensOf } from "../helpers/instances.ts";
import { dataDir, launch, PROCESS_TEST_MS } from "../helpers/process.ts";
import { onPostgres, testStore } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // a child process start plus a lease (see helpers/process.ts)

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** Starts the fixture server; resolves with its key and base URL once it listens. */
async function startChild(env: Record<string, string>) {
  const child = launch(["bun", "tests/fixtures/slow-server.ts"], env);
  const { fixture_key: key } = await child.waitLog((l) => l.fixture_key);
  const { url: base } = await child.waitLog((l) => l.msg === "listening" || l.message === "listening");
  return { proc: child.proc, key: key as string, base: base as string };
}

describe("kill -9 of the generating instance", () => {
  test("the reply ends failed with what was stored; a resuming client is told so", async () => {
    const dir = await dataDir("parley-crash-");
    const env: Record<string, string> = { SLOW_AGENT_TOKENS: "500", SLOW_AGENT_DELAY_MS: "20", REPLY_LEASE_MS: "1000" };
    if (onPostgres) env.DATABASE_URL = process.env.DATABASE_URL!;
    else env.DATA_DIR = dir;
    const child = await startChild(env);

    const seen = await readEvents(await post(child.base, child.key, "/v1/chat", { message: "go", stream: true }), 40);
    const { conversation_id: convId, message_id: msgId } = seen[0]!.data;
    child.proc.kill("SIGKILL");
    await child.proc.exited;
    const killedAt = Date.now();

    // The other instance: alongside on PostgreSQL; on PGlite, the next process opening the folder.
    let store: Store;
    if (onPostgres) store = await testStore();
    else {
      const opened = await openStoreFromEnv(loadEnv({ DATA_DIR: dir }));
      cleanup.push(() => opened.close());
      store = opened;
    }
    const other = await harness({ store });
    const base = listen(other.app).url;

    const rest = await readEvents(
      await get(base, child.key, eventsPath(convId, msgId), { "last-event-id": String(seen.at(-1)!.id) }),
    );
    const endedAfterMs = Date.now() - killedAt;
    expect(rest.at(-1)!.data).toMatchObject({ type: "error", error: { code: "generation_failed" } });
    expect(rest.filter((e) => e.data.type === "error")).toHaveLength(1);

    const conv = (await (await get(base, child.key, `/v1/conversations/${convId}`)).json()) as any;
    const stored = conv.messages[1];
    expect(stored.status).toBe("failed");
    // What was stored is what the client saw, up to the last flush before the kill (≤ one flush interval).
    expect(tokensOf(seen)).toStartWith(stored.content);
    expect(stored.content.length).toBeGreaterThan(0);
    // A fresh client reading it from the start gets exactly the stored reply, then the failure.
    const replay = await readEvents(await get(base, child.key, eventsPath(convId, msgId)));
    expect(tokensOf(replay)).toBe(stored.content);
    expect(replay.at(-1)!.data.type).toBe("error");
    console.info(`kill -9: the reply ended failed ${endedAfterMs} ms after the kill (lease 1000 ms)`);
  });
});

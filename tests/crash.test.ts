/**
 * kill -9 of the instance generating a reply: a real child process (tests/fixtures/slow-server.ts,
 * the real `serve` with a slow agent and a 1 s lease). Another instance — on PostgreSQL one
 * running alongside, on PGlite the next process to open the folder — ends the reply as `failed`
 * with what was stored, and a client resuming it hears so.
 */
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStoreFromEnv } from "../src/runtime/store.ts";
import { loadEnv } from "../src/config/env.ts";
import type { Store } from "../src/db/client.ts";
import { harness } from "./helpers/app.ts";
import { eventsPath, get, post, readEvents, tokensOf } from "./helpers/instances.ts";
import { onPostgres, testStore } from "./helpers/store.ts";

setDefaultTimeout(60_000); // a child process start plus a lease

const root = join(import.meta.dir, "..");
const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** Starts the fixture server; resolves with its key and base URL once it listens. */
async function startChild(env: Record<string, string>) {
  const proc = Bun.spawn(["bun", "tests/fixtures/slow-server.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0", ...env },
    stdout: "pipe",
    stderr: "ignore",
  });
  cleanup.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    return proc.exited;
  });
  let key = "";
  let base = "";
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const line of buffer.split("\n").slice(0, -1)) {
      try {
        const log = JSON.parse(line);
        if (log.fixture_key) key = log.fixture_key;
        if (log.msg === "listening" || log.message === "listening") base = log.url;
      } catch {
        // not a log line
      }
    }
    buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    if (key && base) break;
  }
  if (!key || !base) throw new Error("the fixture server did not start");
  return { proc, key, base };
}

describe("kill -9 of the generating instance", () => {
  test("the reply ends failed with what was stored; a resuming client is told so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-crash-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
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
    const srv = other.app.listen({ port: 0, hostname: "127.0.0.1" });
    cleanup.push(() => srv.stop(true));
    const base = `http://127.0.0.1:${srv.server!.port}`;

    const rest = await readEvents(await get(base, child.key, eventsPath(convId, msgId), { "last-event-id": String(seen.at(-1)!.id) }));
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

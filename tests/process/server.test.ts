/**
 * The server and CLI as real processes, stopped by real signals: graceful shutdown, the second
 * signal's fast path, a signal during start-up, Ctrl-C during an ingest. Every case then reopens
 * the PGlite folder to check it was closed cleanly (lock released, data readable).
 * The slow replies come from tests/fixtures/slow-server.ts (the real `serve`, with a slow agent).
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { loadEnv } from "../../src/config/env.ts";
import { migrate } from "../../src/db/migrate.ts";
import { messages } from "../../src/db/schema.ts";
import { countDocuments } from "../../src/knowledge/ingest.ts";
import { openStoreFromEnv } from "../../src/runtime/store.ts";
import {
  dataDir,
  fileAppears,
  launch,
  PROCESS_TEST_MS,
  startServer,
  tempDir as tempFolder,
} from "../helpers/process.ts";
import { followSse } from "../helpers/sse.ts";
import { onPostgres } from "../helpers/store.ts";

const tempDir = () => tempFolder("parley-server-");

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml (real processes: initdb may take 15 s)

/** The slow server, started and listening: its URL and a key. */
async function slowServer(dir: string, env: Record<string, string>) {
  const srv = launch(["bun", "tests/fixtures/slow-server.ts"], { DATA_DIR: dir, ...env });
  const { fixture_key: key } = await srv.waitLog((l) => l.fixture_key);
  const { url } = await srv.waitLog((l) => l.msg === "listening");
  return { ...srv, key: key as string, url: url as string };
}

/** A streamed chat, followed as it arrives (helpers/sse.ts): `until(type)` waits for the first such event. */
async function stream(url: string, key: string) {
  const res = await fetch(`${url}/v1/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ message: "go", stream: true }),
  });
  expect(res.status).toBe(200);
  return followSse(res);
}

/**
 * Whether new TCP connections to the server's port are refused (polled for up to 5 s): the listener
 * closes right after the "shutting down" line, and a connect already in the kernel's backlog
 * may still be accepted on a busy machine.
 */
async function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const until = Date.now() + 5_000;
  for (;;) {
    try {
      const socket = await Bun.connect({ hostname, port: Number(port), socket: { data() {} } });
      socket.end();
    } catch {
      return true;
    }
    if (Date.now() > until) return false;
    await Bun.sleep(20);
  }
}

/** Opens the data folder again, as the next start would; the lock file must be gone first. */
async function reopen<T>(
  dir: string,
  fn: (store: Awaited<ReturnType<typeof openStoreFromEnv>>) => Promise<T>,
): Promise<T> {
  expect(existsSync(join(dir, "parley.lock"))).toBe(false);
  const store = await openStoreFromEnv(loadEnv({ DATA_DIR: dir }));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const storedReply = (dir: string, conversationId: string) =>
  reopen(dir, async (store) => {
    const rows = await store.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, conversationId), eq(messages.role, "assistant")));
    return rows;
  });

const text = (events: any[]) =>
  events
    .filter((e) => e.type === "token")
    .map((e) => e.content)
    .join("");

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("server process: signals", () => {
  // One folder for the slow-server cases (each run adds its own key), copied from the template.
  let dir = "";
  beforeAll(async () => {
    dir = await dataDir("parley-server-");
  });

  test("SIGTERM: new connections are refused, the running reply finishes, exit 0, reply stored as completed", async () => {
    const srv = await slowServer(dir, { SLOW_AGENT_TOKENS: "30", SLOW_AGENT_DELAY_MS: "100" }); // ~3 s
    const chat = await stream(srv.url, srv.key);
    await chat.until("token");
    srv.proc.kill("SIGTERM");
    await srv.waitLog((l) => l.msg === "shutting down");
    expect(await refused(srv.url)).toBe(true);
    const events = await chat.done;
    expect(events.at(-1).type).toBe("end");
    const { code, stderr } = await srv.exited();
    expect(code, stderr).toBe(0);
    const rows = await storedReply(dir, events[0].conversation_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "completed", content: text(events), id: events.at(-1).message_id });
  });

  test("a reply still running after SHUTDOWN_GRACE_MS ends with service_unavailable, exit 0, stored as failed (logged as a warning)", async () => {
    const srv = await slowServer(dir, {
      SLOW_AGENT_TOKENS: "50",
      SLOW_AGENT_DELAY_MS: "100",
      SHUTDOWN_GRACE_MS: "200",
    }); // ~5 s
    const chat = await stream(srv.url, srv.key);
    await chat.until("token");
    srv.proc.kill("SIGTERM");
    const events = await chat.done;
    // Cut off, not finished: fewer than the agent's 50 tokens (no wall-clock bound: load-proof).
    expect(events.filter((e: { type: string }) => e.type === "token").length).toBeLessThan(50);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "service_unavailable" } });
    const { code, stderr } = await srv.exited();
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('"msg":"generation cut off"');
    expect(stderr).not.toContain("generation failed");
    const rows = await storedReply(dir, events[0].conversation_id);
    expect(rows[0]).toMatchObject({ status: "failed", content: text(events) });
  });

  test("a second signal during the grace cuts running replies off at once; the store still closes, exit 0", async () => {
    const srv = await slowServer(dir, {
      SLOW_AGENT_TOKENS: "50",
      SLOW_AGENT_DELAY_MS: "100",
      SHUTDOWN_GRACE_MS: "20000",
    });
    const chat = await stream(srv.url, srv.key);
    await chat.until("token");
    srv.proc.kill("SIGTERM");
    await srv.waitLog((l) => l.msg === "shutting down");
    srv.proc.kill("SIGINT");
    const events = await chat.done;
    // The reply (~5 s) would finish well within the 20 s grace: ending before its 50 tokens shows
    // the second signal cut it off (no wall-clock bound: load-proof).
    expect(events.filter((e: { type: string }) => e.type === "token").length).toBeLessThan(50);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "service_unavailable" } });
    const { code, stderr, logs } = await srv.exited();
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('"msg":"second signal: ending the running replies now"');
    expect(logs.at(-1)).toMatchObject({ msg: "stopped" });
    const rows = await storedReply(dir, events[0].conversation_id);
    expect(rows[0]).toMatchObject({ status: "failed", content: text(events) });
  });
});

describe.skipIf(onPostgres)("signals during start-up and CLI commands", () => {
  test("SIGTERM while `serve` creates its PGlite folder: start-up stops, the store closes, exit 0", async () => {
    const dir = tempDir();
    const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir });
    // The lock is taken after the handlers are installed and before PGlite's initdb.
    await fileAppears(dir, "parley.lock", srv.proc);
    srv.proc.kill("SIGTERM");
    const { code, signal, logs, stderr } = await srv.exited();
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(logs.map((l) => l.msg)).toEqual([
      "signal during start-up: stopping once the current step is done",
      "stopped",
    ]);
    await reopen(dir, async (store) => {
      await migrate(store);
      expect(await countDocuments(store.db)).toBe(0);
    });
  });

  test("Ctrl-C during a large ingest stops after the current document, closes the store, exit 130", async () => {
    const dir = tempDir();
    const total = 3_000;
    const file = join(dir, "big.jsonl");
    const docs = Array.from({ length: total }, (_, i) =>
      JSON.stringify({
        url: `https://big.test/${i}`,
        title: `Doc ${i}`,
        content: "Wombats dig burrows with strong claws. ".repeat(40),
      }),
    );
    writeFileSync(file, docs.join("\n"));
    const env = { DATA_DIR: await dataDir("parley-server-"), LOG_LEVEL: "warn" }; // migrated
    const cli = launch(["bun", "src/main.ts", "ingest", file], env);
    // Well into the ingest (which takes seconds), not at its end: its first progress line.
    const progress = await cli.waitErr((l) => l.startsWith("ingest: "));
    expect(progress).toMatch(/^ingest: \d+ of 3000 document\(s\) stored$/);
    cli.proc.kill("SIGINT");
    const { code, stderr, logs } = await cli.exited();
    expect(code, stderr).toBe(130);
    expect(stderr).toContain("ingest interrupted; the store was closed cleanly");
    expect(stderr).not.toContain("failed https://");
    expect(logs).toEqual([]); // no "ingested N": it did not finish
    await reopen(env.DATA_DIR, async (store) => {
      expect(await countDocuments(store.db)).toBeLessThan(total);
    });
  });
});

/** Every entry under `dir` (not following links) whose mode lets group or others in, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (st.mode & 0o077) found.push(`${path} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

describe.skipIf(onPostgres)("start-up: port and data folder", () => {
  // One folder for these cases, copied from the template.
  let dir = "";
  beforeAll(async () => {
    dir = await dataDir("parley-server-");
  });

  test("a second server on a port in use exits 1 naming the port; the first keeps all the traffic", async () => {
    const first = await startServer(dir);
    const port = new URL(first.url).port;
    const other = await dataDir("parley-server-");
    const second = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: other, PORT: port });
    const { code, stderr, logs } = await second.exited();
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(logs.map((l) => l.msg)).not.toContain("listening");
    for (let i = 0; i < 10; i++) expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    first.proc.kill("SIGTERM");
    expect((await first.exited()).code).toBe(0);
  });

  test("the data folder is private: folder 0700, every file 0600, the admin socket 0600", async () => {
    const srv = await startServer(dir);
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dir)).toEqual([]);
      expect(lstatSync(join(dir, "parley.sock")).mode & 0o777).toBe(0o600);
      expect(readdirSync(join(dir, "pg", "pg_wal")).length).toBeGreaterThan(0); // the WAL is there, and private
    } finally {
      srv.proc.kill("SIGTERM");
      await srv.exited();
    }
  });

  test("an existing folder open to everyone (0777, files 0666) is tightened at start, with a warning", async () => {
    const chmodAll = (path: string) => {
      const st = lstatSync(path);
      chmodSync(path, st.isDirectory() ? 0o777 : 0o666);
      if (st.isDirectory()) for (const name of readdirSync(path)) chmodAll(join(path, name));
    };
    chmodAll(dir);
    expect(openToOthers(dir).length).toBeGreaterThan(100);
    const srv = await startServer(dir);
    expect(openToOthers(dir)).toEqual([]);
    srv.proc.kill("SIGTERM");
    const { code, stderr } = await srv.exited();
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      new RegExp(
        `"level":"warn","msg":"the data folder ${dir} was readable by other users: removed group/other permissions from \\d+ file`,
      ),
    );
    expect(openToOthers(dir)).toEqual([]);
  });
});

/**
 * A full disk under a PGlite server, on a real file system: a tmpfs of 80 MiB as DATA_DIR's disk.
 * Postgres PANICs when it cannot write its next WAL segment (16 MiB), and PGlite then spun
 * forever: no answer, not even /healthz, SIGTERM ignored. Now the store refuses writes while a
 * segment still fits (runtime/disk-room.ts), a PANIC that happens anyway leaves the store
 * reopening rather than wedged (runtime/panic-fence.ts), and a stalled event loop ends the
 * process (runtime/watchdog.ts). Skipped, saying why, where a tmpfs cannot be mounted (not root).
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cli, dataDir, launch, PROCESS_TEST_MS, startServer, templateDataDir } from "../helpers/process.ts";
import { mountTmpfs, type Tmpfs } from "../helpers/tmpfs.ts";

setDefaultTimeout(PROCESS_TEST_MS);

const MiB = 1024 * 1024;
/** The store's limits for PGlite's 16 MiB WAL segments (runtime/disk-room.ts). */
const REQUESTS_BELOW = 32 * MiB;
const STATEMENTS_BELOW = 20 * MiB;

const probe = mountTmpfs(1);
const why = typeof probe === "string" ? probe : undefined;
if (typeof probe !== "string") probe.unmount();
if (why) console.warn(`disk-full tests skipped: ${why}`);

let disk: Tmpfs | undefined;
afterEach(() => {
  disk?.unmount();
  disk = undefined;
});
const mount = () => {
  const t = mountTmpfs(80);
  if (typeof t === "string") throw new Error(t);
  disk = t;
  return t;
};

/** 30,000 characters nobody could compress much (Postgres would squeeze a repeated letter to nothing). */
const bulky = () => Buffer.from(crypto.getRandomValues(new Uint8Array(22_500))).toString("base64");

interface Body {
  error?: { code: string };
  conversation_id?: string;
  content?: string;
  messages?: { content: string }[];
}

/** Status, body and Retry-After of `req`, or "timeout" when it takes over 10 s (a wedged store). */
async function answer(req: Promise<Response>) {
  try {
    const r = await req;
    return { status: r.status, body: (await r.json()) as Body, retryAfter: r.headers.get("retry-after") };
  } catch (error) {
    if ((error as Error).name === "TimeoutError") return "timeout" as const;
    throw error;
  }
}

const statusOf = (a: Awaited<ReturnType<typeof answer>>) => (a === "timeout" ? a : a.status);

describe.skipIf(Boolean(why))("a full disk (PGlite on a tmpfs)", () => {
  test("writes answer 503 while a WAL segment would not fit, reads and /healthz go on; back by itself once space is freed, nothing acknowledged lost", async () => {
    const t = mount();
    const dir = join(t.dir, "data");
    cpSync(await templateDataDir(), dir, { recursive: true });
    const created = await cli(["keys", "create", "--name", "disk", "--plan", "pro"], { DATA_DIR: dir });
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const srv = await startServer(dir, { PRO_RPM: "100000", PRO_RPD: "1000000" });
    const auth = { authorization: `Bearer ${key}` };
    const get = (path: string) =>
      answer(fetch(`${srv.url}${path}`, { headers: auth, signal: AbortSignal.timeout(10_000) }));
    const chat = (message: string) =>
      answer(
        fetch(`${srv.url}/v1/chat`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ message }),
          signal: AbortSignal.timeout(10_000),
        }),
      );
    const probe = (path: string) => answer(fetch(`${srv.url}${path}`, { signal: AbortSignal.timeout(2_000) }));
    const refused = (a: Awaited<ReturnType<typeof chat>>) => {
      expect(a).not.toBe("timeout");
      if (a === "timeout") return;
      expect(a.status, JSON.stringify(a.body)).toBe(503);
      expect(a.body.error?.code).toBe("service_unavailable");
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    };

    // Just above the point where writes stop: a few dozen 30 KB chats fit.
    t.fillTo(REQUESTS_BELOW + MiB, "filler");
    const acked = new Map<string, { question: string; reply: string }>();
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 150 && !statuses.includes(503); i++) {
      const question = bulky();
      const a = await chat(question);
      statuses.push(a === "timeout" ? a : a.status);
      if (a === "timeout" || a.status !== 200) continue;
      acked.set(a.body.conversation_id!, { question, reply: a.body.content! });
    }
    const summary = `${acked.size}×200 then ${JSON.stringify(statuses.slice(acked.size))}; free ${t.free()}`;
    expect(
      statuses.slice(0, -1).every((s) => s === 200),
      summary,
    ).toBe(true);
    expect(statuses.at(-1), summary).toBe(503);
    expect(acked.size, summary).toBeGreaterThan(0);
    const first = acked.keys().next().value!;
    for (let i = 0; i < 3; i++) refused(await chat(bulky()));
    // Reads go on; the server is alive and says it is not ready.
    expect(statusOf(await get("/v1/conversations?limit=5"))).toBe(200);
    expect(statusOf(await get(`/v1/conversations/${first}`))).toBe(200);
    expect(statusOf(await probe("/healthz"))).toBe(200);
    expect(statusOf(await probe("/readyz"))).toBe(503);

    // Below one segment and a margin: every statement that writes is refused, whoever runs it
    // (here the limiter's count, so keyed reads too); still no hang, still alive.
    t.fillTo(STATEMENTS_BELOW - 2 * MiB, "filler-2");
    // The store reads the free space again within a tenth of a second.
    const keyedRead = () => get(`/v1/conversations/${first}`);
    for (const until = Date.now() + 2_000; statusOf(await keyedRead()) !== 503; ) {
      expect(Date.now(), "keyed reads refused within 2 s").toBeLessThan(until);
      await Bun.sleep(50);
    }
    refused(await keyedRead());
    refused(await chat(bulky()));
    expect(statusOf(await probe("/healthz"))).toBe(200);

    rmSync(join(t.dir, "filler"));
    rmSync(join(t.dir, "filler-2"));
    const freedAt = Date.now();
    for (;;) {
      const ready = await probe("/readyz");
      if (ready !== "timeout" && ready.status === 200) break;
      expect(Date.now() - freedAt, "ready again within 10 s of the space being freed").toBeLessThan(10_000);
      await Bun.sleep(100);
    }
    const readyMs = Date.now() - freedAt;
    for (let i = 0; i < 3; i++) expect(statusOf(await chat(bulky()))).toBe(200);
    // Every answered chat is stored: the question and the reply as they were answered.
    for (const [id, { question, reply }] of acked) {
      const a = await get(`/v1/conversations/${id}`);
      expect(statusOf(a)).toBe(200);
      if (a === "timeout") continue;
      expect(a.body.messages?.map((m) => m.content)).toEqual([question, reply]);
    }
    console.log(`disk full: ${summary}; ready again ${readyMs} ms after the space was freed`);
  });

  test("a PANIC for want of a WAL segment leaves the store failing fast, then reopened by itself with every acknowledged row", async () => {
    const t = mount();
    cpSync(await templateDataDir(), t.dir, { recursive: true }); // its pg/ folder: no initdb
    const fixture = launch(["bun", "tests/fixtures/wal-panic.ts"], { PANIC_DIR: t.dir });
    const panic = await fixture.waitLog((l) => l.panic, 60_000);
    expect(panic.panic).toMatchObject({ code: "53100", severity: "PANIC" });
    expect(panic.panic.message).toMatch(/pg_wal\/xlogtemp.*No space left on device/);
    // Before the fence, the first of these never returned: the process spun at 100% CPU.
    const after = await fixture.waitLog((l) => l.after, 10_000);
    expect(after.after).toEqual(["57P03", "57P03", "57P03"]);
    rmSync(join(t.dir, "filler"));
    const reopened = await fixture.waitLog((l) => l.reopened !== undefined, 30_000);
    expect(reopened.rows).toBe(panic.acknowledged);
    expect((await fixture.exited()).code).toBe(0);
    console.log(`PANIC after ${panic.acknowledged} rows; reopened ${reopened.reopened} ms after the space was freed`);
  });
});

describe("a stalled event loop", () => {
  test("ends the process (SIGKILL, one log line) within WATCHDOG_MS, even with SIGTERM ignored", async () => {
    const srv = launch(["bun", "tests/fixtures/stall-server.ts"], {
      DATA_DIR: await dataDir(),
      WATCHDOG_MS: "1500",
    });
    const { url } = await srv.waitLog((l) => l.msg === "listening");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const stalledAt = Date.now();
    srv.proc.kill("SIGUSR2");
    // Stalled: the server no longer answers, and SIGTERM's handler cannot run. The signal is
    // handled asynchronously, so a probe sent at once may still be answered: probe until one is not.
    let probe: unknown;
    for (let i = 0; i < 5; i++) {
      probe = await answer(fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) }));
      if (probe === "timeout") break;
    }
    expect(probe).toBe("timeout");
    srv.proc.kill("SIGTERM");
    const ended = await Promise.race([srv.exited(), Bun.sleep(15_000).then(() => "still running" as const)]);
    expect(ended).not.toBe("still running");
    if (ended === "still running") return;
    expect(ended.signal, JSON.stringify(ended)).toBe("SIGKILL");
    const line = JSON.parse(ended.stderr.trim().split("\n").at(-1)!);
    expect(line).toMatchObject({ level: "error", watchdog_ms: 1500 });
    expect(line.msg).toMatch(/event loop has not run/);
    console.log(`stalled loop: killed ${Date.now() - stalledAt} ms after the stall (${line.stalled_ms} ms seen)`);
  });
});

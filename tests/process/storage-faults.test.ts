/**
 * Storage faults on PGlite: the data folder made read-only under a running
 * server (folders 0500, files 0400), then given back. Requests answer 503 with Retry-After,
 * never 500; /readyz says not ready while the store cannot write, and the server recovers by
 * itself once the fault clears (it reopens the store). A real server run as a non-root user
 * (root bypasses file permissions); skipped when the tests do not run as root.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { launch, PROCESS_TEST_MS, tempDir } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";
import { testUser } from "../helpers/unprivileged.ts";

setDefaultTimeout(PROCESS_TEST_MS);

const user = testUser();

const setModes = (dir: string, folders: string, files: string) => {
  for (const [type, mode] of [
    ["d", folders],
    ["f", files],
  ] as const)
    expect(Bun.spawnSync(["find", dir, "-type", type, "-exec", "chmod", mode, "{}", "+"]).exitCode).toBe(0);
};

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(200);
  }
}

describe.skipIf(onPostgres || !user)("storage faults (PGlite, non-root)", () => {
  test("a read-only data folder: 503 + Retry-After and not ready; recovery without a restart once it is writable", async () => {
    const home = tempDir("parley-fault-");
    user!.own(home);
    const dataDir = join(home, "data");
    const env = { DATA_DIR: dataDir, HOME: home };
    const srv = launch(user!.run(["bun", "src/main.ts", "serve"]), env);
    const { url } = await srv.waitLog((l) => l.msg === "listening");
    const created = Bun.spawnSync(user!.run(["bun", "src/main.ts", "keys", "create", "--name", "f", "--plan", "pro"]), {
      cwd: join(import.meta.dir, "../.."),
      env: { PATH: process.env.PATH!, LOG_LEVEL: "warn", ...env },
    });
    expect(created.exitCode, created.stderr.toString()).toBe(0);
    const key = created.stdout.toString().trim();
    const chat = (message: string) =>
      fetch(`${url}/v1/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ message }),
      });
    const ready = () => fetch(`${url}/readyz`);
    expect((await ready()).status).toBe(200);

    setModes(dataDir, "0500", "0400");
    // Not ready once the folder cannot be written (the probe runs at most once a second), before any request failed.
    await until("/readyz to report the fault", async () => ((await ready()).status === 503 ? true : undefined), 5_000);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await chat(`question ${i} while the folder is read-only`);
      const body = (await r.json()) as { error?: { code?: string }; request_id?: string };
      statuses.push(r.status);
      if (r.status !== 200) {
        expect(r.status, JSON.stringify(body)).toBe(503);
        expect(body.error?.code).toBe("service_unavailable");
        expect(body.request_id).toBe(r.headers.get("x-request-id")!);
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    // The folder is read-only: the replies cannot all have been stored.
    expect(statuses.filter((s) => s === 503).length, JSON.stringify(statuses)).toBeGreaterThan(0);
    expect((await ready()).status).toBe(503);

    setModes(dataDir, "0700", "0600");
    const recoveredIn = Date.now();
    await until("/readyz to recover", async () => ((await ready()).status === 200 ? true : undefined));
    const ms = Date.now() - recoveredIn;
    const after: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await chat(`question ${i} after the fault`);
      after.push(r.status);
      expect(r.status, await r.text()).toBe(200);
    }
    console.log(
      `storage fault: during ${JSON.stringify(statuses)}; ready again after ${ms} ms; after ${after.length}×200`,
    );
  });
});

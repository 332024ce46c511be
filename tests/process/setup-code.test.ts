/**
 * First run without a shell, as a user meets it: `parley serve` on a store with no admin key logs
 * a one-time setup code; a stop voids it and the next start prints another; the code, exchanged
 * once over HTTP, is the first admin key; after that no start prints one. Real processes.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { dataDir, PROCESS_TEST_MS, startServer } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS * 2);

const exchange = (url: string, code: string) =>
  fetch(`${url}/v1/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code, name: "first admin" }),
  });

/** The setup line a server wrote (warn: on stderr), parsed, if any. */
const setupLine = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.includes('"setup_code"'))
    .map((l) => JSON.parse(l))[0];

/** A server on `dir`, listening; `expectCode`: wait for the setup code it logs. */
async function serve(dir: string, expectCode: boolean) {
  const srv = await startServer(dir);
  const raw = expectCode ? await srv.waitErr((l) => l.includes('"setup_code"'), 10_000) : undefined;
  const line = raw ? JSON.parse(raw) : undefined;
  return { ...srv, code: line?.setup_code as string | undefined, line };
}

/** SIGTERM, a clean exit; what it wrote. */
async function stop(srv: Awaited<ReturnType<typeof serve>>) {
  srv.proc.kill("SIGTERM");
  const end = await srv.exited();
  expect(end.code).toBe(0);
  return end;
}

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("setup code in the server's log", () => {
  test("printed while no admin key exists, void after a stop, exchanged once, then never printed again", async () => {
    const dir = await dataDir("parley-setup-");
    const first = await serve(dir, true);
    expect(first.code).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){3}$/);
    expect(first.line).toMatchObject({ level: "warn", console: `${first.url}/console` });
    expect(first.line!.msg).toContain(first.code);
    expect(Date.parse(first.line!.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(await (await fetch(`${first.url}/v1/setup`)).json()).toEqual({ state: "open" });
    await stop(first);

    const second = await serve(dir, true);
    expect(second.code).toBeDefined();
    expect(second.code).not.toBe(first.code);
    const stale = await exchange(second.url, first.code!);
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe("invalid_setup_code");

    const made = await exchange(second.url, second.code!);
    expect(made.status).toBe(201);
    const key = (await made.json()) as { secret: string; role: string };
    expect(key.role).toBe("admin");
    const keys = await fetch(`${second.url}/v1/keys`, { headers: { authorization: `Bearer ${key.secret}` } });
    expect(keys.status).toBe(200);
    const again = await exchange(second.url, second.code!);
    expect(again.status).toBe(409);
    expect(await (await fetch(`${second.url}/v1/setup`)).json()).toEqual({ state: "done" });
    // The secret is never logged; the exchange is.
    const end = await stop(second);
    expect(JSON.stringify(end.logs) + end.stderr).not.toContain(key.secret);
    expect(end.stderr).toContain("setup: the first admin key was created");

    const third = await serve(dir, false);
    expect(setupLine((await stop(third)).stderr)).toBeUndefined();
  });
});

/**
 * The data-folder lock between real servers: one paused (SIGSTOP) keeps its folder, one killed
 * (SIGKILL) lets go at once. The lock in this process: tests/lock.test.ts.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { SERVER_LOCK, STORE_LOCK } from "../../src/runtime/lock.ts";
import { dataDir, launch, PROCESS_TEST_MS, startServer } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("data folder lock between real servers", () => {
  test("a paused server keeps its folder however long it sleeps; after SIGKILL a new server starts at once", async () => {
    const dir = await dataDir("parley-lock-");
    const first = await startServer(dir);
    first.proc.kill("SIGSTOP");
    // Make the pause look long: the lock files' mtimes 10 minutes old (a heartbeat lock would
    // call such a holder gone; the kernel lock does not care).
    const old = new Date(Date.now() - 600_000);
    for (const name of [STORE_LOCK, SERVER_LOCK])
      if (existsSync(join(dir, name))) utimesSync(join(dir, name), old, old);

    const second = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir });
    // It must not take over: exit 1, and never "listening".
    const refused = await Promise.race([
      second.exited(),
      second.waitLog((l) => l.msg === "listening").then((l) => ({ code: l.msg, stderr: "" })),
    ]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(
      `The data folder ${dir} is in use by another Parley server (pid ${first.proc.pid}`,
    );

    first.proc.kill("SIGCONT");
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200); // it resumes, still the owner

    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const third = await startServer(dir); // no staleness wait: the kernel let go when the holder died
    expect((await fetch(`${third.url}/healthz`)).status).toBe(200);
    third.proc.kill("SIGTERM");
    expect((await third.exited()).code).toBe(0);
  });
});

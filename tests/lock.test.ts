/**
 * The data-folder locks (kernel flock): who may take them, and when — in this process, and
 * between real servers, one of them paused (SIGSTOP) or killed (SIGKILL).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { lockDataDir, lockServer, SERVER_LOCK, STORE_LOCK, serverHolding } from "../src/runtime/lock.ts";
import { launch, PROCESS_TEST_MS, startServer, tempDir } from "./helpers/process.ts";
import { onPostgres } from "./helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

describe("data folder lock", () => {
  test("a second holder is refused while the first holds it (naming folder and holder); release frees it", () => {
    const dir = tempDir("parley-lock-");
    const release = lockDataDir(dir, "keys list");
    expect(() => lockDataDir(dir)).toThrow(
      `The data folder ${dir} is in use by another Parley process (pid ${process.pid} on ${hostname()}, \`keys list\`)`,
    );
    release();
    expect(existsSync(join(dir, STORE_LOCK))).toBe(false);
    lockDataDir(dir)();
  });

  test("a lock file left by a crashed process, however recent, is no lock: taken at once", () => {
    const dir = tempDir("parley-lock-");
    writeFileSync(join(dir, STORE_LOCK), JSON.stringify({ pid: process.pid, host: hostname(), command: "serve" }));
    const release = lockDataDir(dir, "migrate");
    expect(JSON.parse(readFileSync(join(dir, STORE_LOCK), "utf8"))).toMatchObject({
      pid: process.pid,
      command: "migrate",
    });
    release();
  });

  test("the server lock: a second server is refused; a probe sees the holder and takes nothing", async () => {
    const dir = tempDir("parley-lock-");
    expect(serverHolding(dir)).toBeNull();
    const release = await lockServer(dir);
    expect(serverHolding(dir)).toMatchObject({ pid: process.pid, command: "serve" });
    await expect(lockServer(dir)).rejects.toThrow(`The data folder ${dir} is in use by another Parley server`);
    release();
    expect(serverHolding(dir)).toBeNull();
    (await lockServer(dir))();
  });
});

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("data folder lock between real servers", () => {
  test("a paused server keeps its folder however long it sleeps; after SIGKILL a new server starts at once", async () => {
    const dir = tempDir("parley-lock-");
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

/** The data-folder lock: who may take it over, and when. */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { lockDataDir, STALE_MS } from "../src/cli/lock.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const dirs: string[] = [];
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), "parley-lock-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const writeLock = (dir: string, holder: unknown, ageMs = 0) => {
  const path = join(dir, "parley.lock");
  writeFileSync(path, JSON.stringify(holder));
  const t = new Date(Date.now() - ageMs);
  utimesSync(path, t, t);
};

/** A pid that is not running: past the kernel's pid_max. */
const DEAD_PID = 4_194_305;

describe("data folder lock", () => {
  test("a second holder is refused while the first holds it; release frees it", () => {
    const dir = folder();
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(`The data folder ${dir} is in use`);
    release();
    expect(existsSync(join(dir, "parley.lock"))).toBe(false);
    lockDataDir(dir)();
  });

  test("our own pid from an earlier run (a container's PID 1) with a live heartbeat is not ours to take", () => {
    const dir = folder();
    writeLock(dir, { pid: process.pid, host: hostname(), token: "earlier" });
    expect(() => lockDataDir(dir)).toThrow("is in use");
  });

  test("another host's lock with a live heartbeat is refused, even though its pid means nothing here", () => {
    const dir = folder();
    writeLock(dir, { pid: DEAD_PID, host: "some-other-host", token: "x" });
    expect(() => lockDataDir(dir)).toThrow("some-other-host");
  });

  test("a dead pid on this host is taken over at once", () => {
    const dir = folder();
    writeLock(dir, { pid: DEAD_PID, host: hostname(), token: "gone" });
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, "parley.lock"), "utf8")).pid).toBe(process.pid);
    release();
  });

  test("a lock whose heartbeat stopped is taken over, whoever wrote it", () => {
    const dir = folder();
    writeLock(dir, { pid: process.pid, host: "some-other-host", token: "old" }, STALE_MS + 1_000);
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, "parley.lock"), "utf8")).host).toBe(hostname());
    release();
  });

  test("release leaves a lock that is no longer ours alone", () => {
    const dir = folder();
    const release = lockDataDir(dir);
    writeLock(dir, { pid: DEAD_PID, host: "another", token: "theirs" });
    release();
    expect(JSON.parse(readFileSync(join(dir, "parley.lock"), "utf8")).token).toBe("theirs");
  });
});

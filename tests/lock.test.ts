/**
 * The data-folder locks (kernel flock): who may take them, and when, in this process. Between
 * real servers (one paused, one killed): tests/process/lock.test.ts.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { openPglite } from "../src/db/client.ts";
import { lockDataDir, lockServer, STORE_LOCK, serverHolding } from "../src/runtime/lock.ts";
import { tempDir } from "./helpers/process.ts";
import { pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

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

describe("the library's lock (openPglite on a folder)", () => {
  // A new folder is filled from the run's initdb'd image (as a loaded store is): initdb on disk
  // takes seconds, and what is tested here is the lock around the folder, not initdb.
  let image: Blob;
  beforeAll(async () => {
    image = await pgliteImage();
  }, 300_000);
  const newFolder = (dir: string) => openPglite(dir, { loadDataDir: image });

  test("two library stores on one folder: the second is refused naming the first; close() frees it", async () => {
    const dir = join(tempDir("parley-lib-lock-"), "store");
    const first = await newFolder(dir);
    await expect(openPglite(dir)).rejects.toThrow(
      `The PGlite folder ${dir} is in use by another process (pid ${process.pid} on ${hostname()}, \`app ${process.argv[1]}\`)`,
    );
    expect(JSON.parse(readFileSync(join(dir, STORE_LOCK), "utf8"))).toMatchObject({ embedded: true });
    await first.close();
    expect(existsSync(join(dir, STORE_LOCK))).toBe(false);
    await (await openPglite(dir)).close();
  });

  test("a folder named pg is locked in its parent: the lock of `parley` with DATA_DIR set to that parent", async () => {
    const dataDir = tempDir("parley-lib-lock-");
    const app = await newFolder(join(dataDir, "pg"));
    // What a CLI command (and a server, once it holds the server lock) runs first: refused, told why.
    expect(() => lockDataDir(dataDir, "keys create")).toThrow(
      `The data folder ${dataDir} is in use by an app that embeds Parley (pid ${process.pid}`,
    );
    await app.close();
    const cli = lockDataDir(dataDir, "keys create");
    await expect(openPglite(join(dataDir, "pg"))).rejects.toThrow(
      `The PGlite folder ${join(dataDir, "pg")} is in use by another process (pid ${process.pid} on ${hostname()}, \`keys create\`)`,
    );
    cli();
  });
});

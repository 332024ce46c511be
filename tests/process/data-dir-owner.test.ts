/**
 * A data folder owned by another user is refused, as PostgreSQL refuses a
 * data directory it does not own: that user could reopen the store or move the admin socket.
 * Real processes as root (the check applies to root too); skipped when not root.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chownSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cli, launch, PROCESS_TEST_MS, tempDir } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS);

const NOBODY = 65534;

describe.skipIf(onPostgres || process.getuid?.() !== 0)("data folder owned by another user", () => {
  test("serve and store commands refuse it, naming the owner, and write nothing in it", async () => {
    const dir = join(tempDir("parley-owner-"), "data");
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, NOBODY, NOBODY);

    const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir });
    const started = srv
      .waitLog((l) => l.msg === "listening")
      .then(
        () => "listening",
        () => "exited",
      );
    expect(await started).toBe("exited");
    const out = await srv.exited();
    expect(out.code, out.stderr).toBe(1);
    expect(out.stderr).toContain(`owned by another user (uid ${NOBODY})`);
    expect(out.logs.some((l) => l.msg === "listening")).toBe(false);

    const keys = await cli(["keys", "list"], { DATA_DIR: dir });
    expect(keys.code, keys.stderr).toBe(1);
    expect(keys.stderr).toContain(`owned by another user (uid ${NOBODY})`);
    expect(readdirSync(dir)).toEqual([]);

    // A folder of its own whose pg folder was handed to another user: refused too.
    const own = join(dir, "..", "own");
    mkdirSync(join(own, "pg"), { recursive: true, mode: 0o700 });
    chownSync(join(own, "pg"), NOBODY, NOBODY);
    const again = await cli(["keys", "list"], { DATA_DIR: own });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(`${join(own, "pg")} is owned by another user`);
    expect(existsSync(join(own, "pg", "PG_VERSION"))).toBe(false);
  });
});

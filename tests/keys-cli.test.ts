/** The CLI's `keys …` commands, run in process on the shared store (tests/process/cli.test.ts runs the binary). */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createKey, revokeKey } from "../src/auth/keys-admin.ts";
import { printable, runStoreCommand } from "../src/runtime/cli/commands.ts";
import { bufferIo } from "../src/runtime/cli/io.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const store = { ...(await testStore()), describe: "test store" };
const run = async (argv: string[]) => {
  const io = bufferIo();
  const outcome = await runStoreCommand(store, "keys", argv, io).then(
    (code) => ({ code, error: undefined }),
    (error: Error) => ({ code: 1, error }),
  );
  return { ...outcome, stdout: io.stdout.join("\n"), stderr: io.stderr.join("\n") };
};
const lineOf = (stdout: string, id: string) => stdout.split("\n").find((l) => l.startsWith(id)) ?? "";

describe("keys on the command line", () => {
  test("keys create takes --role as keys update does; --admin with --role chat is refused", async () => {
    const admin = await run(["create", "--name", "by-role", "--plan", "pro", "--role", "admin"]);
    expect(admin.code).toBe(0);
    expect(admin.stderr).toContain(", admin)");
    const id = admin.stderr.match(/created (key_\w+)/)![1]!;
    expect(lineOf((await run(["list"])).stdout, id)).toContain(" admin ");
    const both = await run(["create", "--name", "both", "--plan", "pro", "--admin", "--role", "chat"]);
    expect(both.code).toBe(1);
    expect(both.error?.message).toContain("contradict");
  });

  test("keys list shows an expired key as expired, a revoked one as revoked, a live one as active", async () => {
    const now = Date.now();
    // Created a minute ago with a 30 s lifetime: expired now.
    const lapsed = await createKey(
      store.db,
      { name: "lapsed", plan: "pro", expiresAt: new Date(now - 30_000) },
      new Date(now - 60_000),
    );
    const live = await createKey(store.db, { name: "live", plan: "pro", expiresAt: new Date(now + 3_600_000) });
    const gone = await createKey(store.db, { name: "gone", plan: "pro" });
    await revokeKey(store.db, gone.id);
    const { code, stdout } = await run(["list"]);
    expect(code).toBe(0);
    expect(lineOf(stdout, lapsed.id)).toContain(`expired ${new Date(now - 30_000).toISOString()}`);
    expect(lineOf(stdout, live.id)).toContain(" active ");
    expect(lineOf(stdout, gone.id)).toMatch(/ revoked \d{4}-/);
  });

  test("a NUL in a name is a clear error; a failed statement never prints its text or parameters", async () => {
    const statementText = (message: string) => {
      expect(message).not.toContain("Failed query");
      expect(message).not.toContain("params");
      expect(message).not.toMatch(/[0-9a-f]{64}/); // a key hash
    };
    const named = await run(["create", "--name", "a\u0000b", "--plan", "pro"]);
    expect(named.error?.message).toBe("name must not contain control characters; it contains NUL (U+0000).");
    statementText(named.error!.message);
    expect(named.stdout).toBe("");
    const revoked = await run(["revoke", "key_\u0000"]);
    expect(revoked.error?.message).toContain("cannot be stored: NUL (U+0000)");
    statementText(revoked.error!.message);
    // Any other failed statement: the database's reason and SQLSTATE, not the statement.
    const failed = await store.db.execute(sql`select ${"a-secret-parameter"}::text, 1 / 0`).catch((e: Error) => e);
    const message = printable(failed).message;
    expect(message).toBe("a database statement failed: division by zero (SQLSTATE 22012)");
    expect(message).not.toContain("a-secret-parameter");
  });
});

/**
 * The CLI while a server holds the PGlite folder: `keys …`, `ingest` and `migrate` are forwarded
 * to the server's admin socket and take effect at once, with no downtime. Real processes.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lockDataDir } from "../../src/runtime/lock.ts";
import { cli, dataDir, launch, PROCESS_TEST_MS, startServer, tempDir } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

const chat = (url: string, key: string, message: string) =>
  fetch(`${url}/v1/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("CLI commands while the server runs", () => {
  // One folder for these cases, copied from the run's template (helpers/process.ts).
  let dir = "";
  beforeAll(async () => {
    dir = await dataDir("parley-admin-");
  });
  test("keys create → the key works at once; ingest → searchable through chat; keys revoke → the next request is 401", async () => {
    const env = { DATA_DIR: dir };
    const srv = await startServer(dir);

    const created = await cli(["keys", "create", "--name", "live", "--plan", "pro"], env);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^prl_[A-Za-z0-9_-]{43}$/);
    const keyId = /created (key_[0-9a-z]{26}) \(pro\)/.exec(created.stderr)?.[1];
    expect(keyId, created.stderr).toBeDefined();
    const list = await cli(["keys", "list"], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(keyId!);

    const before = await chat(srv.url, key, "How do wombats dig?");
    expect(before.status, await before.clone().text()).toBe(200);
    expect(((await before.json()) as { content: string }).content).not.toContain("burrows");

    // A relative path, as a user types it: resolved against the CLI's working directory, not the server's.
    const docs = tempDir("parley-admin-docs-");
    writeFileSync(
      join(docs, "wombats.md"),
      "---\nurl: https://admin.test/wombats\n---\n# Wombats\nWombats dig burrows with their strong claws.",
    );
    const ingest = await cli(
      ["ingest", join(docs.slice(docs.lastIndexOf("/") + 1), "wombats.md")],
      env,
      join(docs, ".."),
    );
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).toBe("ingested 1 document(s)\n");
    const after = await chat(srv.url, key, "How do wombats dig?");
    const reply = (await after.json()) as { content: string; sources?: unknown };
    expect(after.status, JSON.stringify(reply)).toBe(200);
    expect(reply.content).toContain("burrows");

    const migrated = await cli(["migrate"], env);
    expect(migrated.stdout).toBe(`migrations applied (PGlite in ${dir})\n`);

    const revoked = await cli(["keys", "revoke", keyId!], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${keyId}\n`);
    const refused = await chat(srv.url, key, "still there?");
    expect(refused.status, await refused.clone().text()).toBe(401);

    // Failures keep their exit code and streams over the socket too.
    const again = await cli(["keys", "revoke", keyId!], env);
    expect(again).toMatchObject({ code: 1, stdout: "" });
    expect(again.stderr).toContain(`error: no active key ${keyId}`);
    const bad = await cli(["keys", "create", "--name", "x", "--plan", "gold"], env);
    expect(bad).toMatchObject({ code: 1, stdout: "" });
    expect(bad.stderr).toContain("--plan must be one of");

    expect(srv.logs.filter((l) => l.msg === "admin command").map((l) => l.command)).toEqual([
      "keys create",
      "keys list",
      "ingest",
      "migrate",
      "keys revoke",
      "keys revoke",
      "keys create",
    ]);
    expect(JSON.stringify(srv.logs)).not.toContain(key); // the secret crossed the socket, never the log
    srv.proc.kill("SIGTERM");
    expect((await srv.exited()).code).toBe(0);
  });

  test("a command started with the server (during its start-up) waits for it, then runs on it", async () => {
    const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir });
    const created = await cli(["keys", "create", "--name", "early", "--plan", "free"], { DATA_DIR: dir });
    expect(created.code, created.stderr).toBe(0);
    const { url } = await srv.waitLog((l) => l.msg === "listening");
    const res = await fetch(`${url}/v1/conversations`, {
      headers: { authorization: `Bearer ${created.stdout.trim()}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    srv.proc.kill("SIGTERM");
    expect((await srv.exited()).code).toBe(0);
  });

  test("a server that finds a command holding the folder waits for it to end, then starts", async () => {
    const release = lockDataDir(dir, "ingest"); // this process plays the long-running command
    const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir });
    try {
      const waiting = await srv.waitLog(
        (l) => l.msg === "the data folder is in use by a Parley command; waiting for it to end",
      );
      expect(waiting.holder).toContain("`ingest`");
      expect(srv.logs.some((l) => l.msg === "listening")).toBe(false);
    } finally {
      release();
    }
    const { url } = await srv.waitLog((l) => l.msg === "listening");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    srv.proc.kill("SIGTERM");
    expect((await srv.exited()).code).toBe(0);
  });

  test("a socket file left by a crashed server: the next server replaces it; with no server the CLI never uses it", async () => {
    const first = await startServer(dir);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(lstatSync(join(dir, "parley.sock")).isSocket()).toBe(true); // left behind

    const offline = await cli(["keys", "create", "--name", "offline", "--plan", "free"], { DATA_DIR: dir });
    expect(offline.code, offline.stderr).toBe(0); // ran on the folder itself

    const second = await startServer(dir);
    const online = await cli(["keys", "list"], { DATA_DIR: dir });
    expect(online.code, online.stderr).toBe(0);
    expect(online.stdout).toContain("offline");
    expect(second.logs.some((l) => l.msg === "admin command")).toBe(true);
    second.proc.kill("SIGTERM");
    expect((await second.exited()).code).toBe(0);
  });
});

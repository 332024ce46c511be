/** The command line, run as a user would: `bun src/main.ts …` in a temp data folder. */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, dataDir as dataFolder, PROCESS_TEST_MS, root, tempDir as tempFolder } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

const tempDir = () => tempFolder("parley-cli-");

// The CLI always runs on its own PGlite folder here; the PostgreSQL run would only repeat it.
describe.skipIf(onPostgres)("cli (PGlite data folder)", () => {
  let dataDir = "";
  beforeAll(async () => {
    dataDir = await dataFolder("parley-cli-");
  });
  let keyId = "";

  test("keys create prints the secret once, as the only stdout line (the id on stderr)", async () => {
    const r = await cli(["keys", "create", "--name", "ci", "--plan", "pro"], { DATA_DIR: dataDir });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^prl_[A-Za-z0-9_-]{43}$/);
    keyId = /created (key_[0-9a-z]{26})/.exec(r.stderr)![1]!;
    const list = await cli(["keys", "list"], { DATA_DIR: dataDir });
    expect(list.stdout).toContain(keyId);
    expect(list.stdout).toContain(lines.at(-1)!.slice(0, 12));
    expect(list.stdout).not.toContain(lines.at(-1)!);
  });

  test("keys update, revoke; bad input is a clear error, not a crash", async () => {
    expect(
      (
        await cli(["keys", "update", keyId, "--plan", "enterprise", "--rpm", "500", "--rpd", "9000"], {
          DATA_DIR: dataDir,
        })
      ).code,
    ).toBe(0);
    expect((await cli(["keys", "list"], { DATA_DIR: dataDir })).stdout).toMatch(/enterprise\s+500\/min 9000\/day/);
    const bad = await cli(["keys", "create", "--name", "x", "--plan", "gold"], { DATA_DIR: dataDir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--plan must be one of");
    expect(bad.stdout).toBe(""); // `KEY=$(parley keys create …)` gets nothing, and the exit status says why
    const ent = await cli(["keys", "create", "--name", "x", "--plan", "enterprise"], { DATA_DIR: dataDir });
    expect(ent.stderr).toContain("enterprise key needs");
    expect((await cli(["keys", "revoke", keyId], { DATA_DIR: dataDir })).code).toBe(0);
    const again = await cli(["keys", "revoke", keyId], { DATA_DIR: dataDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active key ${keyId}`);
  });

  test("keys create --admin makes an admin key; ingest --kb NAME names the knowledge base, an unknown one is an error", async () => {
    const a = await cli(["keys", "create", "--name", "boss", "--plan", "pro", "--admin"], { DATA_DIR: dataDir });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/created key_\w+ \(pro, admin\)/);
    expect((await cli(["keys", "list"], { DATA_DIR: dataDir })).stdout).toMatch(/admin\s+pro .* boss/);
    const dir = tempDir();
    writeFileSync(join(dir, "a.md"), "---\nurl: https://kb.test/a\n---\n# A\nokapi facts");
    const bad = await cli(["ingest", "--kb", "nope", dir], { DATA_DIR: dataDir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("no knowledge base named 'nope'");
    const ok = await cli(["ingest", "--kb", "default", dir], { DATA_DIR: dataDir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("ingested 1 document(s)");
  });

  test("ingest loads good documents and reports bad lines with file:line", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "kb.jsonl"),
      `${JSON.stringify({ url: "https://k.test/1", title: "T", content: "wombat facts" })}\n{oops\n`,
    );
    writeFileSync(join(dir, "page.md"), "---\nurl: https://k.test/page\n---\n# Page\nnumbat facts");
    const r = await cli(["ingest", dir], { DATA_DIR: dataDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("ingested 2 document(s), skipped 1");
    expect(r.stderr).toContain(`${join(dir, "kb.jsonl")}:2`);
  });

  test("ingest skips a symlink loop and a broken link, reports them, and loads the rest", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs", "a.md"), "---\nurl: https://loop.test/a\n---\n# A\nquokka facts");
    symlinkSync("..", join(dir, "docs", "up")); // docs/up/docs/up/… forever
    symlinkSync("missing.md", join(dir, "docs", "broken.md"));
    const r = await cli(["ingest", dir], { DATA_DIR: dataDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("ingested 1 document(s), skipped 2\n");
    expect(r.stderr).toContain(`skipped ${join(dir, "docs", "up")}: folder already read as ${dir}`);
    expect(r.stderr).toContain(`skipped ${join(dir, "docs", "broken.md")}: cannot read it (ENOENT)`);
  });

  test("a command while another holds the folder gets a clear error naming the folder and the holder", async () => {
    const { lockDataDir } = await import("../../src/runtime/lock.ts");
    const release = lockDataDir(dataDir, "ingest");
    try {
      const r = await cli(["keys", "create", "--name", "x", "--plan", "free"], { DATA_DIR: dataDir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`The data folder ${dataDir} is in use by another Parley process (pid ${process.pid}`);
      expect(r.stderr).toContain("`ingest`");
    } finally {
      release();
    }
  });
});

describe("cli (environment and usage)", () => {
  test("a bad environment value stops the process naming the variable", async () => {
    for (const [name, value] of [
      ["PORT", "http"],
      ["LOG_LEVEL", "loud"],
      ["DATABASE_URL", "mysql://x"],
      ["KEEPALIVE_MS", "60000"],
    ]) {
      const r = await cli(["migrate"], { [name!]: value! });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(name!);
    }
  });

  test("--version and -v print the version from package.json, whatever the environment", async () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-v"])
      expect(await cli([flag], { PORT: "not a port" })).toEqual({ code: 0, stdout: `parley ${version}\n`, stderr: "" });
  });

  test("unknown command → usage and exit 2", async () => {
    const r = await cli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage: parley");
  });
});

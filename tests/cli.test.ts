/** The command line, run as a user would: `bun src/main.ts …` in a temp data folder. */
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPostgres } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const root = join(import.meta.dir, "..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "parley-cli-"));
  dirs.push(d);
  return d;
}

/** Runs the CLI on PGlite in `dataDir` (never on the shared test database). */
async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", "src/main.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

// The CLI always runs on its own PGlite folder here; the PostgreSQL run would only repeat it.
describe.skipIf(onPostgres)("cli (PGlite data folder)", () => {
  const dataDir = tempDir();
  let keyId = "";

  test("keys create prints the secret once, as the last line", async () => {
    const r = await cli(["keys", "create", "--name", "ci", "--plan", "pro"], { DATA_DIR: dataDir });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^prl_[A-Za-z0-9_-]{43}$/);
    keyId = /key_[0-9a-z]{26}/.exec(r.stdout)![0];
    const list = await cli(["keys", "list"], { DATA_DIR: dataDir });
    expect(list.stdout).toContain(keyId);
    expect(list.stdout).toContain(lines.at(-1)!.slice(0, 12));
    expect(list.stdout).not.toContain(lines.at(-1)!);
  });

  test("keys update, revoke; bad input is a clear error, not a crash", async () => {
    expect((await cli(["keys", "update", keyId, "--plan", "enterprise", "--rpm", "500", "--rpd", "9000"], { DATA_DIR: dataDir })).code).toBe(0);
    expect((await cli(["keys", "list"], { DATA_DIR: dataDir })).stdout).toMatch(/enterprise\s+500\/min 9000\/day/);
    const bad = await cli(["keys", "create", "--name", "x", "--plan", "gold"], { DATA_DIR: dataDir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--plan must be one of");
    const ent = await cli(["keys", "create", "--name", "x", "--plan", "enterprise"], { DATA_DIR: dataDir });
    expect(ent.stderr).toContain("enterprise key needs");
    expect((await cli(["keys", "revoke", keyId], { DATA_DIR: dataDir })).code).toBe(0);
    const again = await cli(["keys", "revoke", keyId], { DATA_DIR: dataDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active key ${keyId}`);
  });

  test("ingest loads good documents and reports bad lines with file:line", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "kb.jsonl"), `${JSON.stringify({ url: "https://k.test/1", title: "T", content: "wombat facts" })}\n{oops\n`);
    writeFileSync(join(dir, "page.md"), "---\nurl: https://k.test/page\n---\n# Page\nnumbat facts");
    const r = await cli(["ingest", dir], { DATA_DIR: dataDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("ingested 2 document(s), skipped 1");
    expect(r.stderr).toContain(`${join(dir, "kb.jsonl")}:2`);
  });

  test("a second process on the same data folder gets a clear error naming it", async () => {
    const proc = Bun.spawn(["bun", "src/main.ts", "serve"], {
      cwd: root,
      env: { PATH: process.env.PATH!, DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = proc.stdout.getReader();
      let out = "";
      while (!out.includes("listening")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`server exited: ${out}`);
        out += new TextDecoder().decode(value);
      }
      const r = await cli(["keys", "list"], { DATA_DIR: dataDir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`The data folder ${dataDir} is in use`);
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
    // After a clean stop the folder is usable again.
    expect((await cli(["keys", "list"], { DATA_DIR: dataDir })).code).toBe(0);
  });
});

describe("cli (environment and usage)", () => {
  test("a bad environment value stops the process naming the variable", async () => {
    for (const [name, value] of [["PORT", "http"], ["LOG_LEVEL", "loud"], ["DATABASE_URL", "mysql://x"], ["KEEPALIVE_MS", "60000"]]) {
      const r = await cli(["migrate"], { [name!]: value! });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(name!);
    }
  });

  test("unknown command → usage and exit 2", async () => {
    const r = await cli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage: parley");
  });
});

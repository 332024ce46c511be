/**
 * One writer per data folder, whoever writes: an app that embeds the library (openPglite, on Bun
 * and on Deno: tests/deno/embedded-app.ts, the same file on both), `parley serve` and `parley`
 * commands take the same kernel lock, so none of them opens a folder another one holds. The lock
 * in one process: tests/lock.test.ts.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { cli, dataDir, launch, PROCESS_TEST_MS, startServer } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

const hasDeno = Bun.which("deno") !== null;
if (!hasDeno) console.warn("library-lock.test.ts: the Deno cases are skipped, deno is missing (npm install -g deno)");

type Runtime = "bun" | "deno";
const APP = "tests/deno/embedded-app.ts";
const appCommand = (runtime: Runtime, folder: string) =>
  runtime === "bun" ? ["bun", APP, folder] : ["deno", "run", "-A", APP, folder];

/** The app on `folder`, running: its process and the pid it reports. */
async function startApp(runtime: Runtime, folder: string) {
  const app = launch(appCommand(runtime, folder), {});
  const ready = await app.waitLog((l) => l.ready === true, 90_000);
  expect(ready.pid).toBe(app.proc.pid);
  return app;
}

/** Another app on `folder`, which must be refused: its stderr. */
async function refusedApp(runtime: Runtime, folder: string): Promise<string> {
  const { code, stderr } = await launch(appCommand(runtime, folder), {}).exited();
  expect(code, stderr).toBe(3);
  return stderr;
}

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("an app that embeds Parley holds its PGlite folder", () => {
  for (const runtime of ["bun", "deno"] as const) {
    test.skipIf(runtime === "deno" && !hasDeno)(
      `on ${runtime}: a command, a server and a second app are refused naming it; once it stops, the command works`,
      async () => {
        const dir = await dataDir("parley-embed-");
        const folder = join(dir, "pg");
        const app = await startApp(runtime, folder);
        const holder = `(pid ${app.proc.pid} on `;

        const keys = await cli(["keys", "create", "--name", "late", "--plan", "free"], { DATA_DIR: dir });
        expect(keys.code).toBe(1);
        expect(keys.stdout).toBe(""); // no secret printed: nothing was written
        expect(keys.stderr).toContain(`The data folder ${dir} is in use by an app that embeds Parley ${holder}`);

        // A server does not wait for the app as it would for a command: it stops at once.
        const server = await launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir }).exited();
        expect(server.code).toBe(1);
        expect(server.stderr).toContain(`The data folder ${dir} is in use by an app that embeds Parley ${holder}`);
        expect(server.logs.some((l) => l.msg === "listening")).toBe(false);

        for (const other of hasDeno ? (["bun", "deno"] as const) : (["bun"] as const))
          expect(await refusedApp(other, folder)).toContain(
            `The PGlite folder ${folder} is in use by another process ${holder}`,
          );

        app.proc.kill("SIGTERM");
        expect((await app.exited()).code).toBe(0);
        const after = await cli(["keys", "create", "--name", "after", "--plan", "free"], { DATA_DIR: dir });
        expect(after.code, after.stderr).toBe(0);
        const list = await cli(["keys", "list"], { DATA_DIR: dir });
        expect(list.stdout).toContain("after");
        expect(list.stdout).not.toContain("late");
      },
    );
  }

  test("a running server holds the folder: an app on Bun and on Deno is refused naming the server", async () => {
    const dir = await dataDir("parley-embed-");
    const server = await startServer(dir);
    for (const runtime of hasDeno ? (["bun", "deno"] as const) : (["bun"] as const))
      expect(await refusedApp(runtime, join(dir, "pg"))).toContain(
        `The PGlite folder ${join(dir, "pg")} is in use by another process (pid ${server.proc.pid} on `,
      );
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

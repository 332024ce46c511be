/**
 * `parley sources …` as a user runs it, against a docs site this file serves on 127.0.0.1: on its
 * own PGlite folder (the sync runs in the command's process, which ends with it) and through a
 * running server's admin socket (the sync runs in the server).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Source, SourceList, SourceSync } from "../../src/contract/sources.ts";
import { type DocsSite, docPage, serveDocsSite } from "../helpers/docs-site.ts";
import { cli, dataDir as dataFolder, PROCESS_TEST_MS, startServer } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

const PAGES = {
  "/": docPage("Lumen docs", "<p>Lumen is a static site host.</p>", ["/docs/install", "/docs/deploy"]),
  "/docs/install": docPage("Install the CLI", "<p>Install the Lumen command line tool with npm.</p>", ["/docs/deploy"]),
  "/docs/deploy": docPage("Deploy a site", "<p>Run lumen deploy in your project folder to publish it.</p>"),
};

let site: DocsSite;
beforeAll(() => {
  site = serveDocsSite(PAGES);
});
afterAll(() => site.stop());

/** The crawl may read the test's own site: a loopback address, with no per-host delays. */
const crawlEnv = (dir: string) => ({
  DATA_DIR: dir,
  SOURCES_ALLOW_PRIVATE_NETWORKS: "true",
  SOURCES_POLITENESS: "off",
});

// The CLI always runs on its own PGlite folder here; the PostgreSQL run would only repeat it.
describe.skipIf(onPostgres)("parley sources", () => {
  let dir = "";
  let env: Record<string, string> = {};
  let sourceId = "";
  beforeAll(async () => {
    dir = await dataFolder("parley-cli-sources-");
    env = crawlEnv(dir);
  });

  test("add --wait crawls the site in this process and prints the source id and the sync's counts", async () => {
    const r = await cli(["sources", "add", `${site.origin}/`, "--kb", "default", "--wait"], env);
    expect(r.code, r.stderr).toBe(0);
    const [id, summary] = r.stdout.trim().split("\n");
    expect(id).toMatch(/^src_[0-9a-z]{26}$/);
    sourceId = id!;
    expect(summary).toMatch(/^sync_\w+ completed: discovered \d+ fetched 3 not_modified 0 created 3 /);
    expect(r.stderr).toContain(`added ${sourceId}`);
  });

  test("list shows each source with its last sync; --json is the HTTP list", async () => {
    const r = await cli(["sources", "list", "--kb", "default"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^${sourceId}  auto +completed .* created 3 .* documents 3  ${site.origin}/\\n$`),
    );
    const json = await cli(["sources", "list", "--kb", "default", "--json"], env);
    const { data } = JSON.parse(json.stdout) as SourceList;
    expect(data.map((s) => [s.id, s.document_count, s.last_sync?.status])).toEqual([[sourceId, 3, "completed"]]);
  });

  test("sync --wait: the unchanged pages come back 304 Not Modified", async () => {
    const r = await cli(["sources", "sync", sourceId, "--kb", "default", "--wait"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^sync_\w+ completed: .*fetched 0 not_modified 3 created 0 updated 0 unchanged 3 deleted 0/,
    );
  });

  test("bad arguments: a clear message and exit 2, nothing on stdout", async () => {
    for (const [args, says] of [
      [["sources", "add", `${site.origin}/x`, "--kb", "default", "--max-pages", "0"], "--max-pages: 1–100000"],
      [["sources", "add", "ftp://example.com/", "--kb", "default"], "URL: an absolute http(s) URL"],
      [["sources", "list"], "--kb is required"],
      [["sources", "frobnicate", "--kb", "default"], "unknown subcommand 'frobnicate'"],
    ] as const) {
      const r = await cli([...args], env);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(says);
      expect(r.stdout).toBe("");
    }
    const twice = await cli(["sources", "add", `${site.origin}/`, "--kb", "default"], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("already has a source with this URL");
  });

  test("remove deletes the source and its documents", async () => {
    const r = await cli(["sources", "remove", sourceId, "--kb", "default"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`removed ${sourceId}\n`);
    expect((await cli(["sources", "list", "--kb", "default"], env)).stdout).toBe("no sources\n");
    const again = await cli(["sources", "remove", sourceId, "--kb", "default"], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no source ${sourceId}`);
  });

  test("with a server holding the folder, add returns at once and the sync runs in the server", async () => {
    const other = await dataFolder("parley-cli-sources-srv-");
    const serverEnv = crawlEnv(other);
    await startServer(other, serverEnv);
    const added = await cli(["sources", "add", `${site.origin}/`, "--kb", "default", "--json"], serverEnv);
    expect(added.code, added.stderr).toBe(0);
    const source = JSON.parse(added.stdout) as Source;
    expect(source.last_sync?.trigger).toBe("created");
    expect(added.stderr).toContain("started on the server");
    // The first sync goes on in the server; a sync asked for meanwhile is that one, waited for.
    const synced = await cli(["sources", "sync", source.id, "--kb", "default", "--wait", "--json"], serverEnv);
    expect(synced.code, synced.stderr).toBe(0);
    const sync = JSON.parse(synced.stdout) as SourceSync;
    expect(sync.status).toBe("completed");
    const list = JSON.parse((await cli(["sources", "list", "--kb", "default", "--json"], serverEnv)).stdout);
    expect((list as SourceList).data[0]!.document_count).toBe(3);
  });
});

/**
 * Archives with real processes: `parley export` while a server serves the folder (through its
 * admin socket), `parley import` into a new folder that a server then serves, and a kill -9
 * during an import that leaves the target empty — the next import loads it whole.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportArchive, openArchive } from "../../src/db/archive/index.ts";
import { migrate } from "../../src/db/migrate.ts";
import { ingestDocuments } from "../../src/knowledge/ingest.ts";
import { parseJsonl } from "../../src/knowledge/parse.ts";
import { cli, dataDir, launch, PROCESS_TEST_MS, startServer, tempDir } from "../helpers/process.ts";
import { CORPUS, freshPglite, onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

const rowsIn = async (file: string) => {
  const { parts } = await openArchive(Bun.file(file).stream());
  const counts: Record<string, number> = {};
  for await (const part of parts) if (part.kind === "row") counts[part.table] = (counts[part.table] ?? 0) + 1;
  return counts;
};

// Real processes on their own PGlite folders; the PostgreSQL run would only repeat them.
describe.skipIf(onPostgres)("archives with real processes", () => {
  const archive = join(tempDir("parley-archive-"), "store.parley");
  let key = "";

  test("export while the server serves: the archive holds what it served; import into its folder is refused", async () => {
    const dir = await dataDir("parley-export-");
    const srv = await startServer(dir);
    const created = await cli(["keys", "create", "--name", "archived", "--plan", "pro"], { DATA_DIR: dir });
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trim();
    const chat = await fetch(`${srv.url}/v1/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "What is Parley?" }),
    });
    expect(chat.status).toBe(200);
    const exported = await cli(["export", "--out", archive], { DATA_DIR: dir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^archive written: .*store\.parley \(\d+\.\d MB in \d+\.\d s\)\n$/);
    const counts = await rowsIn(archive);
    expect(counts.api_keys).toBe(1);
    expect(counts.conversations).toBe(1);
    const refused = await cli(["import", archive], { DATA_DIR: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is held by a Parley server");
  });

  test("import into a new folder: a server on it serves the same key and conversation", async () => {
    const dir = join(tempDir("parley-import-"), "data");
    const imported = await cli(["import", archive], { DATA_DIR: dir });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain("conversations: 1 rows");
    const srv = await startServer(dir);
    const list = await fetch(`${srv.url}/v1/conversations`, { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
  });

  describe("a kill -9 during an import", () => {
    const big = join(tempDir("parley-archive-big-"), "big.parley");
    beforeAll(async () => {
      // A store with thousands of passages, so the load is still running when the kill comes.
      const store = await freshPglite();
      await migrate(store);
      const { docs } = parseJsonl(readFileSync(CORPUS, "utf8"), CORPUS);
      for (let copy = 0; copy < 40; copy++)
        await ingestDocuments(
          store.db,
          docs.map((d) => ({ ...d, url: `${d.url}?copy=${copy}` })),
        );
      writeFileSync(big, new Uint8Array(await new Response(exportArchive(store)).arrayBuffer()));
      await store.close();
    }, PROCESS_TEST_MS);

    test("leaves the target empty; the next import loads it whole", async () => {
      const dir = join(tempDir("parley-killed-"), "data");
      const importing = launch(["bun", "src/main.ts", "import", big], { DATA_DIR: dir });
      await importing.waitErr((line) => line === "loading chunks…");
      importing.proc.kill("SIGKILL");
      await importing.exited();
      const after = await cli(["import", big, "--dry-run"], { DATA_DIR: dir });
      expect(after.code, after.stderr).toBe(0); // empty: it would load
      expect(after.stdout).toContain("dry run: it would load");
      const again = await cli(["import", big], { DATA_DIR: dir });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`chunks: ${(await rowsIn(big)).chunks} rows`);
    });
  });
});

/**
 * Every store command with its flags (`--flag value` and `--flag=value`), run as a user runs it
 * on two copies of one data folder: one with no server (the CLI opens the store itself), one held
 * by a running `serve` (the command is handed over its admin socket). Both ways must end alike:
 * the same exit code and the same output. Real processes; the two sequences run side by side.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, dataDir, PROCESS_TEST_MS, startServer, tempDir } from "../helpers/process.ts";
import { onPostgres } from "../helpers/store.ts";

setDefaultTimeout(PROCESS_TEST_MS); // per file: see bunfig.toml

type Outcome = { code: number; stdout: string; stderr: string };
/** One command: its arguments (given what earlier ones printed) and the exit code it must have. */
type Step = { argv: (seen: Map<string, string>) => string[]; code: number; keep?: string; name?: string };

/** What differs between two runs by design: the data folder, secrets, key ids and prefixes, revocation times. */
const same = (text: string, dir: string) =>
  text
    .replaceAll(dir, "<DATA_DIR>")
    .replace(/prl_[A-Za-z0-9_-]+/g, "prl_…")
    .replace(/key_[0-9a-z]{26}/g, "key_…")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");

/** A plain docs folder (no front matter but one file), and a file whose name starts with dashes. */
function docsFolder(): string {
  const work = tempDir("parley-serving-");
  mkdirSync(join(work, "docs", "guide"), { recursive: true });
  writeFileSync(join(work, "docs", "index.md"), "# Welcome\n\nStart with the guide.");
  writeFileSync(join(work, "docs", "guide", "README.md"), "# Guide\n\nThe guide to okapis.");
  writeFileSync(join(work, "docs", "guide", "set up.md"), "Intro.\n\n## Setting up\n\nInstall the okapi.");
  writeFileSync(join(work, "docs", "own.md"), "---\nurl: https://own.test/page\n---\n# Own\n\nIts own URL.");
  writeFileSync(join(work, "--notes.md"), "---\nurl: https://own.test/notes\n---\n# Notes\n\nDashes.");
  return work;
}

describe.skipIf(onPostgres)("every CLI command, with and without a running server", () => {
  test("the same exit code and output both ways; flags go to the server as typed, paths made absolute", async () => {
    const work = docsFolder();
    const docs = join(work, "docs");
    const steps: Step[] = [
      {
        argv: () => [
          "keys",
          "create",
          "--name",
          "one",
          "--plan",
          "pro",
          "--rpm",
          "100",
          "--rpd=900",
          "--tpd",
          "5000",
          "--expires",
          "2099-01-31",
        ],
        code: 0,
        keep: "one",
      },
      { argv: () => ["keys", "create", "--name=boss", "--plan=pro", "--admin", "--kb=default"], code: 0, keep: "boss" },
      {
        argv: (s) => [
          "keys",
          "update",
          s.get("one")!,
          "--plan",
          "free",
          "--rpm=default",
          "--tpd",
          "none",
          "--role=admin",
          "--kb",
          "default",
        ],
        code: 0,
      },
      { argv: () => ["keys", "list"], code: 0 },
      { argv: (s) => ["keys", "revoke", s.get("one")!], code: 0 },
      // Paths relative to the CLI's working folder (`work`) and absolute ones; flags before and after them.
      {
        argv: () => ["ingest", "--kb", "default", "--base-url", "https://docs.example.com/v2", "docs"],
        code: 0,
        name: "docs",
      },
      {
        argv: () => [
          "ingest",
          `${docs}/guide`,
          "--kb=default",
          "--base-url=https://docs.example.com/",
          "--url-style",
          "html",
        ],
        code: 0,
      },
      { argv: () => ["ingest", "--kb", "default", "--", "--notes.md"], code: 0 },
      { argv: () => ["ingest", "--kb", "nope", docs], code: 1 },
      // No base URL for a folder of plain pages: each says what to pass; nothing stored is exit 1.
      { argv: () => ["ingest", "--kb", "default", `${docs}/guide`], code: 1, name: "no base" },
      { argv: () => ["ingest", "--url-style", "html", docs], code: 1 },
      { argv: () => ["ingest", "--bogus", docs], code: 1, name: "bogus" },
      { argv: () => ["migrate"], code: 0 },
    ];
    const run = async (dir: string) => {
      const seen = new Map<string, string>();
      const outcomes: Outcome[] = [];
      for (const step of steps) {
        const r = await cli(step.argv(seen), { DATA_DIR: dir }, work);
        if (step.keep) seen.set(step.keep, /created (key_\w+)/.exec(r.stderr)?.[1] ?? "");
        if (step.keep === "boss") seen.set("secret", r.stdout.trim());
        outcomes.push({ code: r.code, stdout: same(r.stdout, dir), stderr: same(r.stderr, dir) });
      }
      return { outcomes, seen };
    };

    const [alone, held] = await Promise.all([dataDir("parley-alone-"), dataDir("parley-held-")]);
    const localRun = run(alone); // meanwhile the server starts
    const srv = await startServer(held);
    const [{ outcomes: local }, { outcomes: served, seen }] = await Promise.all([localRun, run(held)]);
    expect(
      local.map((r) => r.code),
      JSON.stringify(local, null, 1),
    ).toEqual(steps.map((s) => s.code));
    expect(served).toEqual(local);
    // Each served command ran on the server (none opened the folder itself).
    expect(srv.logs.filter((l) => l.msg === "admin command")).toHaveLength(steps.length);

    const of = (name: string) => local[steps.findIndex((s) => s.name === name)]!;
    expect(of("docs").stdout).toBe("ingested 4 document(s)\n");
    expect(of("no base").stderr).toContain(
      `skipped ${docs}/guide/README.md:1: front matter needs \`url: https://…\` (or pass --base-url`,
    );
    expect(of("no base").stdout).toBe("ingested 0 document(s), skipped 2\n");
    expect(of("bogus").stderr).toContain("Unknown option '--bogus'");

    // What the server stored: each page at the address the docs site serves it at, titled by its heading.
    const auth = { authorization: `Bearer ${seen.get("secret")}` };
    const kbs = (await (await fetch(`${srv.url}/v1/knowledge_bases`, { headers: auth })).json()) as {
      data: { id: string; name: string }[];
    };
    const kb = kbs.data.find((k) => k.name === "default")!.id;
    const res = await fetch(`${srv.url}/v1/knowledge_bases/${kb}/documents?limit=100`, { headers: auth });
    const stored = ((await res.json()) as { data: { url: string; title: string }[] }).data;
    const titles = Object.fromEntries(
      stored.filter((d) => /docs\.example|own\.test/.test(d.url)).map((d) => [d.url, d.title]),
    );
    expect(titles).toEqual({
      "https://docs.example.com/v2/": "Welcome",
      "https://docs.example.com/v2/guide/": "Guide",
      "https://docs.example.com/v2/guide/set%20up": "Setting up",
      "https://own.test/page": "Own",
      "https://docs.example.com/index.html": "Guide",
      "https://docs.example.com/set%20up.html": "Setting up",
      "https://own.test/notes": "Notes",
    });
    srv.proc.kill("SIGTERM");
    expect((await srv.exited()).code).toBe(0);
  });
});

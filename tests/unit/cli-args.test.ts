/**
 * What the CLI hands a running server (runtime/cli/args.ts): path arguments made absolute, flags
 * and their values exactly as typed. tests/process/cli-serving.test.ts runs the real thing.
 */
import { describe, expect, test } from "bun:test";
import { forServer } from "../../src/runtime/cli/args.ts";

const CWD = "/home/u/site";

describe("forServer: the arguments a forwarded command carries", () => {
  test("ingest: every path resolved, every flag and value untouched, in place", () => {
    expect(forServer(["ingest", "--kb", "docs", "a.md", "notes/"], CWD)).toEqual([
      "ingest",
      "--kb",
      "docs",
      "/home/u/site/a.md",
      "/home/u/site/notes",
    ]);
    expect(
      forServer(["ingest", "--kb=docs", "./docs", "--base-url", "https://d.test/", "--url-style=html"], CWD),
    ).toEqual(["ingest", "--kb=docs", "/home/u/site/docs", "--base-url", "https://d.test/", "--url-style=html"]);
  });

  test("a flag's value is never a path, even when it looks like one; an absolute path stays as it is", () => {
    expect(forServer(["ingest", "--kb", "./kb", "/data/x.jsonl"], CWD)).toEqual([
      "ingest",
      "--kb",
      "./kb",
      "/data/x.jsonl",
    ]);
  });

  test("after --, a name that starts with dashes is a path", () => {
    expect(forServer(["ingest", "--kb", "docs", "--", "--notes.md", "-x"], CWD)).toEqual([
      "ingest",
      "--kb",
      "docs",
      "--",
      "/home/u/site/--notes.md",
      "/home/u/site/-x",
    ]);
  });

  test("arguments the command refuses go as typed (the server refuses them the same way); so does an empty path", () => {
    for (const argv of [
      ["ingest", "--bogus", "a.md"],
      ["ingest", "a.md", "--kb"],
      ["ingest", "--admin", "a.md"],
    ])
      expect(forServer(argv, CWD)).toEqual(argv);
    expect(forServer(["ingest", ""], CWD)).toEqual(["ingest", ""]);
  });

  test("keys and migrate take no paths: unchanged", () => {
    for (const argv of [
      ["keys", "create", "--name", "a b", "--plan=pro", "--kb", "docs", "--kb=other", "--admin"],
      ["keys", "update", "key_x", "--rpm", "default"],
      ["keys", "revoke", "key_x"],
      ["keys", "list"],
      ["migrate"],
    ])
      expect(forServer(argv, CWD)).toEqual(argv);
  });
});

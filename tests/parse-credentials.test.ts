/** Document URLs with credentials are refused at ingest: sources are shown to every key's users. */
import { describe, expect, test } from "bun:test";
import { parseJsonl, parseMarkdown } from "../src/knowledge/parse.ts";

describe("document URLs with credentials", () => {
  test("a .jsonl line is reported as file:line and skipped; the rest load", () => {
    const text = [
      JSON.stringify({ url: "https://user:pass@docs.example/a", title: "A", content: "secret-bearing url" }),
      JSON.stringify({ url: "https://token@docs.example/b", title: "B", content: "user only" }),
      JSON.stringify({ url: "https://:pw@docs.example/c", title: "C", content: "password only" }),
      JSON.stringify({ url: "https://docs.example/d", title: "D", content: "fine" }),
    ].join("\n");
    const { docs, problems } = parseJsonl(text, "kb.jsonl");
    expect(docs.map((d) => d.url)).toEqual(["https://docs.example/d"]);
    expect(problems.map((p) => p.where)).toEqual(["kb.jsonl:1", "kb.jsonl:2", "kb.jsonl:3"]);
    for (const p of problems) expect(p.reason).toContain("credentials");
    // The report never repeats the secret.
    expect(JSON.stringify(problems)).not.toContain("user:pass@");
  });

  test("a markdown file's front matter likewise", () => {
    const r = parseMarkdown("---\nurl: https://u:p@docs.example/x\n---\n# X\ntext", "x.md");
    expect(r.doc).toBeUndefined();
    expect(r.problem).toMatchObject({ where: "x.md:1" });
    expect(r.problem!.reason).toContain("credentials");
    expect(parseMarkdown("---\nurl: https://docs.example/x\n---\n# X\ntext", "x.md").doc?.url).toBe(
      "https://docs.example/x",
    );
  });
});

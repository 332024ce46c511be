/** Knowledge-base parsing and ingest: bad lines skipped with file:line, re-ingest replaces. */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { eq } from "drizzle-orm";
import { splitIntoPassages } from "../src/knowledge/chunk.ts";
import { parseJsonl, parseMarkdown } from "../src/knowledge/parse.ts";
import { ingestDocuments } from "../src/knowledge/service.ts";
import { queryTerms, searchPassages } from "../src/knowledge/search.ts";
import { chunks, documents } from "../src/db/schema.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

describe("parsing", () => {
  test("jsonl: good lines load, bad ones are reported with file:line", () => {
    const text = [
      JSON.stringify({ url: "https://a.test/1", title: "One", content: "first" }),
      "{broken",
      JSON.stringify({ url: "not a url", content: "x" }),
      "",
      JSON.stringify({ url: "https://a.test/2", content: "" }),
      JSON.stringify({ url: "https://a.test/3", content: "no title" }),
      "[1,2]",
    ].join("\n");
    const { docs, problems } = parseJsonl(text, "kb.jsonl");
    expect(docs.map((d) => d.url)).toEqual(["https://a.test/1", "https://a.test/3"]);
    expect(docs[1]!.title).toBe("https://a.test/3");
    expect(problems.map((p) => p.where)).toEqual(["kb.jsonl:2", "kb.jsonl:3", "kb.jsonl:5", "kb.jsonl:7"]);
  });

  test("URLs are stored in canonical form; NUL characters make a line a problem, not a failed ingest", () => {
    const text = [
      JSON.stringify({ url: " https://a.test/über uns ", content: "spaces and umlauts" }),
      JSON.stringify({ url: "https://a.test/nul", content: "a\u0000b" }),
      JSON.stringify({ url: "https://a.test/nul-title", title: "t\u0000", content: "fine" }),
      JSON.stringify({ url: "https://a.test/\u0000", content: "fine" }),
    ].join("\n");
    const { docs, problems } = parseJsonl(text, "kb.jsonl");
    expect(docs.map((d) => d.url)).toEqual(["https://a.test/%C3%BCber%20uns"]);
    expect(problems.map((p) => p.where)).toEqual(["kb.jsonl:2", "kb.jsonl:3", "kb.jsonl:4"]);
    expect(parseMarkdown("---\nurl: https://a.test/x\n---\nnul \u0000 here", "n.md").problem?.reason).toContain("NUL");
  });

  test("markdown: url from front matter, title from front matter or first heading", () => {
    const a = parseMarkdown("---\nurl: https://a.test/md\ntitle: \"Hello\"\n---\n# Ignored\nbody", "a.md");
    expect(a.doc).toEqual({ url: "https://a.test/md", title: "Hello", content: "# Ignored\nbody" });
    const b = parseMarkdown("---\nurl: https://a.test/b\n---\n# From heading\ntext", "b.md");
    expect(b.doc!.title).toBe("From heading");
    expect(parseMarkdown("# no front matter", "c.md").problem?.where).toBe("c.md:1");
  });

  test("passages split on headings (not inside code fences) and long sections at paragraphs", () => {
    const md = `intro\n\n## One\n${"word ".repeat(400)}\n\n${"more ".repeat(200)}\n\n## Two\n\`\`\`\n# not a heading\n\`\`\``;
    const ps = splitIntoPassages("Doc", md);
    expect(ps[0]).toEqual({ heading: "Doc", content: "intro" });
    expect(ps.filter((p) => p.heading === "One").length).toBe(2);
    expect(ps.at(-1)!.content).toContain("# not a heading");
  });

  test("query terms are letters and digits only", () => {
    expect(queryTerms("What's <-> 'x' & y | z:* 42?")).toEqual(["what", "42"]);
  });
});

describe("ingest", () => {
  test("a document the database refuses is reported and the others still load", async () => {
    const store = await testStore();
    const ok = `https://partial.test/${crypto.randomUUID()}`;
    const failed: string[] = [];
    // A NUL that bypassed the parser: PostgreSQL refuses it (22021/22P05).
    const docs = [
      { url: `${ok}-bad`, title: "Bad", content: "x\u0000y" },
      { url: ok, title: "Good", content: "the numbatword lives here" },
    ];
    const n = await ingestDocuments(store.db, docs, { onError: (doc) => failed.push(doc.url) });
    expect({ n, failed }).toEqual({ n: 1, failed: [`${ok}-bad`] });
    expect((await searchPassages(store.db, ["numbatword"])).map((h) => h.url)).toContain(ok);
  });

  test("re-ingesting a URL replaces the document and its passages", async () => {
    const store = await testStore();
    const url = `https://replace.test/${crypto.randomUUID()}`;
    await ingestDocuments(store.db, [{ url, title: "Old", content: "the quokkaword is here" }]);
    expect((await searchPassages(store.db, ["quokkaword"])).map((h) => h.url)).toContain(url);
    await ingestDocuments(store.db, [{ url, title: "New", content: "now about wallabyword" }]);
    expect((await searchPassages(store.db, ["quokkaword"])).map((h) => h.url)).not.toContain(url);
    expect((await searchPassages(store.db, ["wallabyword"]))[0]).toMatchObject({ url, title: "New" });
    const rows = await store.db.select().from(documents).where(eq(documents.url, url));
    expect(rows).toHaveLength(1);
    const passages = await store.db.select().from(chunks).where(eq(chunks.documentId, rows[0]!.id));
    expect(passages).toHaveLength(1);
  });
});

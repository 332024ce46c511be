/**
 * Knowledge-base parsing, ingest (bad lines skipped with file:line, re-ingest replaces) and
 * the ranking: BM25F properties on small made-up documents whose words exist nowhere else.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { chunks, DEFAULT_KB_ID, documents, knowledgeBaseTerms } from "../src/db/schema.ts";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { splitIntoPassages } from "../src/knowledge/chunk.ts";
import { compoundLines } from "../src/knowledge/compounds.ts";
import { BATCH_DOCS, ingestDocuments } from "../src/knowledge/ingest.ts";
import { initialsLines } from "../src/knowledge/initials.ts";
import { parseJsonl, parseMarkdown } from "../src/knowledge/parse.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { rankPassages, searchQueryText } from "../src/knowledge/search.ts";
import { stopWordsOf } from "../src/knowledge/stop-words.ts";
import { cutWords } from "../src/knowledge/unstemmed.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(120_000); // per file: the first test opens the shared store (a cold PGlite: 40 s and more on a saturated machine)

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
    const a = parseMarkdown('---\nurl: https://a.test/md\ntitle: "Hello"\n---\n# Ignored\nbody', "a.md");
    expect(a.doc).toEqual({ url: "https://a.test/md", title: "Hello", content: "# Ignored\nbody", metadata: {} });
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

  test("a cut inside a code block closes it and opens the next passage with its fence line", () => {
    const fences = (text: string) => text.split("\n").filter((l) => /^\s*```/.test(l)).length;
    // Blank lines inside code are paragraph breaks: a cut there used to leave the next passage
    // opening with the block's end, and its fences paired wrongly (prose quoted as code).
    const lines = Array.from({ length: 120 }, (_, i) => `const value${i} = ${i};\n`);
    const md = `## Setup\n${"word ".repeat(100)}\n\n\`\`\`js\n${lines.join("\n")}\`\`\`\n\n${"more ".repeat(50)}`;
    const ps = splitIntoPassages("Doc", md);
    const parts = ps.filter((p) => p.content.includes("const value"));
    expect(parts.length).toBeGreaterThan(1);
    for (const p of ps) expect(fences(p.content) % 2).toBe(0);
    for (const p of parts.slice(1)) expect(p.content).toStartWith("```js\nconst value");
    for (const p of parts.slice(0, -1)) expect(p.content).toEndWith("\n```");
    // Every line of code is in exactly one passage, in order.
    const code = parts.flatMap((p) => p.content.split("\n").filter((l) => l.startsWith("const value")));
    expect(code).toEqual(lines.map((l) => l.trim()));
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
    expect((await searchPassages(store.db, "numbatword")).map((h) => h.url)).toContain(ok);
  });

  test("an aborted signal stops the ingest between batches and returns what was stored", async () => {
    const store = await testStore();
    const base = `https://abort.test/${crypto.randomUUID()}`;
    // Words no other test uses, and removed at the end: the shared store's statistics stay as they were.
    const word = `abortword${crypto.randomUUID().slice(0, 8)}`;
    const docs = Array.from({ length: BATCH_DOCS + 20 }, (_, i) => ({
      url: `${base}/${i}`,
      title: word,
      content: word,
    }));
    const stored = async () =>
      (await store.db.select({ url: documents.url }).from(documents)).filter((d) => d.url.startsWith(base)).length;
    // Aborted before it starts: nothing is stored.
    expect(await ingestDocuments(store.db, docs, { signal: AbortSignal.abort() })).toBe(0);
    expect(await stored()).toBe(0);
    // Aborted after the first batch (BATCH_DOCS documents): the second is never started.
    const controller = new AbortController();
    let checks = 0;
    const signal = {
      get aborted() {
        if (++checks > 1) controller.abort();
        return controller.signal.aborted;
      },
    } as AbortSignal;
    const n = await ingestDocuments(store.db, docs, { signal });
    expect(n).toBe(BATCH_DOCS);
    expect(await stored()).toBe(BATCH_DOCS);
    await store.db.delete(documents).where(sql`${documents.url} like ${`${base}/%`}`);
    expect(await stored()).toBe(0);
  });

  test("re-ingesting a URL replaces the document and its passages", async () => {
    const store = await testStore();
    const url = `https://replace.test/${crypto.randomUUID()}`;
    await ingestDocuments(store.db, [{ url, title: "Old", content: "the quokkaword is here" }]);
    expect((await searchPassages(store.db, "quokkaword")).map((h) => h.url)).toContain(url);
    await ingestDocuments(store.db, [{ url, title: "New", content: "now about wallabyword" }]);
    expect((await searchPassages(store.db, "quokkaword")).map((h) => h.url)).not.toContain(url);
    expect((await searchPassages(store.db, "wallabyword"))[0]).toMatchObject({ url, title: "New" });
    const rows = await store.db.select().from(documents).where(eq(documents.url, url));
    expect(rows).toHaveLength(1);
    const passages = await store.db.select().from(chunks).where(eq(chunks.documentId, rows[0]!.id));
    expect(passages).toHaveLength(1);
  });
});

/** A made-up word no other document has (letters only, so the stemmer keeps it whole). */
const word = () =>
  `zq${Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => "bcdfghjklmnpqrstvwxz"[b % 20]).join("")}`;
const filler = (n: number) => Array.from({ length: n }, (_, i) => `lorem${"abcdefghij"[i % 10]}`).join(" ");
const at = (hits: { url: string }[], url: string) => hits.findIndex((h) => h.url === url);
const base = () => `https://rank.test/${crypto.randomUUID()}`;

describe("ranking (BM25F)", () => {
  test("a rare term outweighs many occurrences of a common one (IDF over term frequency)", async () => {
    const store = await testStore();
    // A knowledge base of its own: how far IDF lifts `rare` above `common` depends on how many
    // documents the base holds, and the shared default base grows with every file run before this one.
    const kbId = (await createKnowledgeBase(store.db, { name: `idf-${crypto.randomUUID()}` })).id;
    const [common, rare, u] = [word(), word(), base()];
    // `common` in ten documents, `rare` in one.
    const docs = Array.from({ length: 10 }, (_, i) => ({
      url: `${u}/c${i}`,
      title: "Note",
      content: `${common} ${filler(20)}`,
    }));
    docs.push({
      url: `${u}/tf`,
      title: "Note",
      content: `${common} ${common} ${common} ${common} ${common} ${filler(16)}`,
    });
    docs.push({ url: `${u}/idf`, title: "Note", content: `${rare} ${filler(20)}` });
    await ingestDocuments(store.db, docs, { kbId });
    const hits = await rankPassages(store.db, `${common} ${rare}`, {
      kbId,
      limit: 20,
      minCoverage: 0,
      minPassageCoverage: 0,
    });
    expect(hits[0]?.url).toBe(`${u}/idf`);
    expect(at(hits, `${u}/tf`)).toBe(1); // among the common ones, more occurrences rank higher
  });

  test("a short passage beats a long one with the same occurrences (length normalisation)", async () => {
    const store = await testStore();
    const [w, u] = [word(), base()];
    await ingestDocuments(store.db, [
      { url: `${u}/long`, title: "Note", content: `${w} ${filler(400)}` },
      { url: `${u}/short`, title: "Note", content: `${w} ${filler(10)}` },
    ]);
    const hits = await rankPassages(store.db, w);
    expect(hits.map((h) => h.url)).toEqual([`${u}/short`, `${u}/long`]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  test("a term in the title weighs more than in the body, in a heading more than in the body", async () => {
    const store = await testStore();
    const [w, u] = [word(), base()];
    await ingestDocuments(store.db, [
      { url: `${u}/body`, title: "Note", content: `Some words about ${w} here. ${filler(20)}` },
      { url: `${u}/title`, title: `${w} guide`, content: `Some words about things here. ${filler(20)}` },
      {
        url: `${u}/heading`,
        title: "Note",
        content: `# Note\n\n## ${w}\n\nSome words about things here. ${filler(20)}`,
      },
    ]);
    const hits = await rankPassages(store.db, w);
    expect(hits.map((h) => h.url)).toEqual([`${u}/title`, `${u}/heading`, `${u}/body`]);
  });

  test("a page with several matching passages beats one stray passage of similar strength", async () => {
    const store = await testStore();
    const [w, v, u] = [word(), word(), base()];
    const section = (h: string) => `## ${h}\n\nText about ${w} and ${v}. ${filler(30)}`;
    await ingestDocuments(store.db, [
      { url: `${u}/one`, title: "Note", content: `Text about ${w} and ${v}. ${filler(30)}` },
      {
        url: `${u}/many`,
        title: "Note",
        content: `${section("First")}\n\n${section("Second")}\n\n${section("Third")}`,
      },
    ]);
    const hits = await rankPassages(store.db, `${w} ${v}`);
    expect(hits[0]!.url).toBe(`${u}/many`);
    expect(hits.filter((h) => h.url === `${u}/many`)).toHaveLength(2); // perPage
  });

  test("question framing common in the documents weighs little; stop words nothing", async () => {
    const store = await testStore();
    const [w, verb, tell, explain, u] = [word(), word(), word(), word(), base()];
    // Framing words (stand-ins for "tell", "explain") that many documents use: low IDF, no list needed.
    const framing = Array.from({ length: 12 }, (_, i) => ({
      url: `${u}/framing${i}`,
      title: "Note",
      content: `Here we ${tell} you and ${explain} things. ${filler(10)}`,
    }));
    await ingestDocuments(store.db, [
      ...framing,
      { url: `${u}/answer`, title: "Note", content: `To ${verb} ${w}, write a file. ${filler(10)}` },
    ]);
    const hits = await rankPassages(
      store.db,
      `Can you ${tell} me how do I ${verb} ${w}? And ${explain} what I should do.`,
    );
    expect(hits[0]?.url).toBe(`${u}/answer`);
  });

  test("coverage: question words and the compound of a hyphenated word weigh nothing", async () => {
    const store = await testStore();
    const [w, v, u] = [word(), word(), base()];
    await ingestDocuments(store.db, [
      {
        url: `${u}/fr`,
        title: "Note",
        content: `Pour ${v} un ${w}, écrivez un fichier. ${filler(10)}`,
        language: "french",
      },
      { url: `${u}/en`, title: "Note", content: `Users who ${w} ${v} see a page. ${filler(10)}` },
    ]);
    // French "comment" (how) frames the question: all of its weight is in the passage's words.
    const fr = await rankPassages(store.db, `Comment ${v} un ${w} ?`, { language: "french" });
    expect(fr[0]?.url).toBe(`${u}/fr`);
    expect(fr[0]?.coverage).toBeCloseTo(1, 6);
    // "w-v" is indexed as w, v and the compound w-v: the compound alone is never held against a passage.
    const en = await rankPassages(store.db, `Which ${w}-${v} users?`);
    expect(en[0]?.url).toBe(`${u}/en`);
    expect(en[0]?.coverage).toBeCloseTo(1, 6);
  });

  test("off-topic questions, stop words alone and punctuation find nothing", async () => {
    const store = await testStore();
    // Made-up words only: the shared store also serves the agent's off-topic questions.
    const [w, shared, u] = [word(), word(), base()];
    await ingestDocuments(store.db, [
      { url: `${u}/a`, title: "Note", content: `The ${w} has a ${shared} on top. ${filler(10)}` },
    ]);
    // Shares one word with a document, and has two it has never seen.
    expect(await rankPassages(store.db, `What is the ${shared} like in ${word()} and ${word()}?`)).toEqual([]);
    expect(await rankPassages(store.db, "What is it that you are?")).toEqual([]);
    expect(await rankPassages(store.db, "?!' & | :* <->")).toEqual([]);
    expect((await rankPassages(store.db, `${shared} ${w}`))[0]?.url).toBe(`${u}/a`);
  });

  test("ingest, replacement and deletion keep the statistics exact", async () => {
    const store = await testStore();
    const [x, y, url] = [word(), word(), base()];
    const df = async (w: string) =>
      (
        await store.db
          .select({ df: knowledgeBaseTerms.df })
          .from(knowledgeBaseTerms)
          .where(and(eq(knowledgeBaseTerms.lexeme, w), eq(knowledgeBaseTerms.kbId, DEFAULT_KB_ID)))
      )[0]?.df ?? 0;
    // The stored statistics equal what the passages say, read in one snapshot.
    const consistent = async () => {
      const r = (await store.db.execute(sql`select
        (select sum(passages) from knowledge_base_stats) = (select count(*) from chunks) as passages,
        (select sum(total_len) from knowledge_base_stats) = (select coalesce(sum(len), 0) from chunks) as len,
        (select sum(total_words) from knowledge_base_stats) = (select coalesce(sum(words), 0) from chunks) as words`)) as unknown as
        | { rows: Record<string, boolean>[] }
        | Record<string, boolean>[];
      return (Array.isArray(r) ? r : r.rows)[0];
    };
    await ingestDocuments(store.db, [{ url, title: "Note", content: `${x} once\n\n## Two\n\n${x} twice` }]);
    expect(await df(x)).toBe(2); // two passages contain it
    expect(await consistent()).toEqual({ passages: true, len: true, words: true });
    await ingestDocuments(store.db, [{ url, title: "Note", content: `now ${y}` }]);
    expect({ x: await df(x), y: await df(y) }).toEqual({ x: 0, y: 1 });
    expect(await consistent()).toEqual({ passages: true, len: true, words: true });
    expect(await rankPassages(store.db, x)).toEqual([]);
    await store.db.delete(documents).where(eq(documents.url, url)); // cascade to its passages
    expect(await df(y)).toBe(0);
    expect(await consistent()).toEqual({ passages: true, len: true, words: true });
  });

  test("concurrent ingests sharing words keep exact document frequencies (PostgreSQL: separate transactions)", async () => {
    const store = await testStore();
    const [a, b, u] = [word(), word(), base()];
    // Four ingests at once, every document holding both words: the same knowledge_base_terms rows.
    const runs = Array.from({ length: 4 }, (_, r) =>
      ingestDocuments(
        store.db,
        Array.from({ length: 10 }, (_, i) => ({
          url: `${u}/${r}-${i}`,
          title: "Note",
          content: `${a} and ${b} ${filler(5)}`,
        })),
      ),
    );
    expect(await Promise.all(runs)).toEqual([10, 10, 10, 10]);
    const df = await store.db
      .select({ lexeme: knowledgeBaseTerms.lexeme, df: knowledgeBaseTerms.df })
      .from(knowledgeBaseTerms)
      .where(sql`${knowledgeBaseTerms.lexeme} in (${a}, ${b})`);
    expect(Object.fromEntries(df.map((r) => [r.lexeme, r.df]))).toEqual({ [a]: 40, [b]: 40 });
  });

  test("the search statement is exported as text for drivers used directly", () => {
    const { sql: text, params } = searchQueryText("How do I sign cookies?");
    expect(text).toContain("knowledge_base_terms");
    // The question as a language with no stemmer reads it (unstemmed.ts) and as written, the
    // acronyms its runs of words may stand for (initials.ts), the cuts of its long words
    // (compounds.ts), its dictionary words only (both readings: the same text when it has no
    // CJK), an empty conversation context (its words too), the function words of configurations
    // with no stop list it holds (stop-words.ts: Vietnamese "do"), and its CJK pairs of lone characters.
    const q = "How do I sign cookies?";
    const stops = JSON.stringify(stopWordsOf(`${q} `));
    expect(stops).toContain('"simple":["do"');
    expect(params).toEqual([
      cutWords(q),
      q,
      initialsLines(q),
      compoundLines(q),
      stops,
      stops,
      cutWords(q),
      q,
      "",
      "",
      "",
      "",
      "",
    ]);
  });
});

/**
 * Changing a knowledge base's language (PATCH) re-indexes the documents whose language came
 * from it (or was detected), so search ranks them with the new text-search configuration at
 * once; a document with its own language is left as it is. The statistics stay exact.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { migrations } from "../src/db/migrations.gen.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { expectStatus, harness } from "./helpers/app.ts";
import { freshPglite, pgliteImage } from "./helpers/store.ts";
import { uniqueWord } from "./helpers/words.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml
beforeAll(() => pgliteImage(), 300_000); // the migration test's own PGlite

const h = await harness();
const admin = await h.admin();
const db = h.store.db;
const uniq = () => crypto.randomUUID().slice(0, 8);
/** A word no other document holds, so a search finds only what a test stored. */
const word = () => uniqueWord("wort");

const rows = async <T>(q: ReturnType<typeof sql>) => {
  const r = (await db.execute(q)) as unknown as T[] | { rows: T[] };
  return Array.isArray(r) ? r : r.rows;
};

const created: string[] = [];
async function newKb(language: string | null) {
  const r = await h.call("POST", "/v1/knowledge_bases", { key: admin, json: { name: `kb-${uniq()}`, language } });
  expectStatus(r, 201);
  created.push(r.json.id);
  return r.json.id;
}
// The store is shared: a thousand German documents left in it would make German the language
// of searches that name no knowledge base (the majority's), in the files that run after this one.
afterAll(async () => {
  for (const kb of created) expectStatus(await h.call("DELETE", `/v1/knowledge_bases/${kb}`, { key: admin }), 204);
});
const patch = async (kb: string, language: string | null) => {
  const r = await h.call("PATCH", `/v1/knowledge_bases/${kb}`, { key: admin, json: { language } });
  expectStatus(r, 200);
  expect(r.json.language).toBe(language);
};
const addDoc = async (kb: string, doc: Record<string, unknown>) =>
  expectStatus(await h.call("POST", `/v1/knowledge_bases/${kb}/documents`, { key: admin, json: doc }), 201);
const found = async (kb: string, query: string) => {
  const r = await h.call("POST", `/v1/knowledge_bases/${kb}/search`, { key: admin, json: { query } });
  expectStatus(r, 200);
  return r.json.data.map((d) => d.url);
};
/** Each document's language, where it came from, and its passages' tsvectors. */
const indexOf = (kb: string) =>
  rows<{ url: string; language: string; source: string; tsv: string }>(sql`
    select d.url, d.language, d.language_source as source, string_agg(c.tsv::text, ' ' order by c.ord) as tsv
    from documents d join chunks c on c.document_id = d.id where d.kb_id = ${kb}
    group by d.url, d.language, d.language_source order by d.url`);

/** Each lexeme's df, per knowledge base, equals the passages that hold it (the triggers kept it exact). */
async function expectExactStats(lexemes: string[]) {
  const diff = await rows<{ lexeme: string; df: number; actual: number }>(sql`
    select l.lexeme || ' ' || k.id as lexeme, coalesce(t.df, 0)::int as df,
      (select count(*) from chunks c where c.kb_id = k.id and c.tsv @@ quote_literal(l.lexeme)::tsquery)::int as actual
    from unnest(${`{${lexemes.join(",")}}`}::text[]) l(lexeme) cross join knowledge_bases k
      left join knowledge_base_terms t on t.lexeme = l.lexeme and t.kb_id = k.id`);
  for (const d of diff) expect({ lexeme: d.lexeme, df: d.df }).toEqual({ lexeme: d.lexeme, df: d.actual });
}

// "Häuser": German stems it to "haus", English keeps "häuser"; only German finds it for "Haus".
const german = (w: string) => `# Die Häuser\n\nDie Häuser von ${w} stehen am Fluss und sind alt.`;

describe("changing a knowledge base's language", () => {
  test("english → german: an inherited document is re-indexed in German; one with its own language is not", async () => {
    const kb = await newKb("english");
    const w = word();
    await addDoc(kb, { url: "https://relang.test/inherited", title: "Häuser", content: german(w) });
    await addDoc(kb, { url: "https://relang.test/own", title: "Häuser", content: german(w), language: "english" });
    expect(await found(kb, "Haus")).toEqual([]); // English stems on both sides: "haus" ≠ "häuser"
    const before = await indexOf(kb);
    expect(before.map((d) => [d.language, d.source])).toEqual([
      ["english", "knowledge_base"],
      ["english", "explicit"],
    ]);

    await patch(kb, "german");
    expect(await found(kb, "Haus")).toEqual(["https://relang.test/inherited"]);
    const after = await indexOf(kb);
    expect(after.map((d) => [d.language, d.source])).toEqual([
      ["german", "knowledge_base"],
      ["english", "explicit"],
    ]);
    expect(after[0]!.tsv).toContain("'haus'");
    expect(after[1]!.tsv).toBe(before[1]!.tsv); // its own language: untouched
    await expectExactStats(["haus", "häuser", "hauser", w]);
  });

  test("null → german → null: detected documents take the setting, then are detected again", async () => {
    const kb = await newKb(null);
    const w = word();
    // Detected as English (its function words), though its nouns are German.
    await addDoc(kb, {
      url: "https://relang.test/detected",
      content: `# Houses\n\nThe Häuser of ${w} are on the river.`,
    });
    await addDoc(kb, { url: "https://relang.test/french", content: german(w), language: "french" });
    expect((await indexOf(kb)).map((d) => [d.language, d.source])).toEqual([
      ["english", "detected"],
      ["french", "explicit"],
    ]);
    await patch(kb, "german");
    expect((await indexOf(kb)).map((d) => [d.language, d.source])).toEqual([
      ["german", "knowledge_base"],
      ["french", "explicit"],
    ]);
    expect(await found(kb, "Haus")).toContain("https://relang.test/detected");
    await patch(kb, null);
    expect((await indexOf(kb)).map((d) => [d.language, d.source])).toEqual([
      ["english", "detected"],
      ["french", "explicit"],
    ]);
    expect((await indexOf(kb))[0]!.tsv).toContain("'häuser'");
    await expectExactStats(["haus", "häuser", w]);
  });

  test("a change during an ingest: every batch is stored under the setting it commits with, then re-indexed", async () => {
    const kb = await newKb("english");
    const w = word();
    const docs = Array.from({ length: 1_000 }, (_, i) => ({
      url: `https://relang.test/${i}`,
      title: "Häuser",
      content: german(`${w} ${i}`),
    }));
    let patched: Promise<void> | undefined;
    const onStored = () => {
      patched ??= patch(kb, "german"); // after the first batch, while the others are stored
    };
    await ingestDocuments(db, docs, { kbId: kb, onStored });
    await patched;
    const [left] = await rows<{ docs: number; passages: number }>(sql`
      select (select count(*) from documents where kb_id = ${kb} and language <> 'german')::int as docs,
        (select count(*) from chunks where kb_id = ${kb} and not tsv @@ 'haus'::tsquery)::int as passages`);
    expect(left).toEqual({ docs: 0, passages: 0 });
    await expectExactStats(["haus", "häuser"]);
  });

  test("ingestDocuments (every upload's, the CLI's and the seed's path) records where the language came from", async () => {
    const kb = await newKb("german");
    await ingestDocuments(
      db,
      [
        { url: "https://relang.test/cli-own", title: "x", content: "Hello there.", language: "english" },
        { url: "https://relang.test/cli-kb", title: "x", content: "Hello there." },
      ],
      { kbId: kb },
    );
    expect((await indexOf(kb)).map((d) => [d.url, d.language, d.source])).toEqual([
      ["https://relang.test/cli-kb", "german", "knowledge_base"],
      ["https://relang.test/cli-own", "english", "explicit"],
    ]);
  });
});

test("migration 0020 infers the source of documents stored before it from the rule ingest applied", async () => {
  const store = await freshPglite();
  const client = (store.db as unknown as { $client: { exec(q: string): Promise<unknown> } }).$client;
  const run = (tags: (typeof migrations)[number][]) =>
    tags.reduce((p, m) => p.then(() => client.exec(m.sql.join("\n"))), Promise.resolve() as Promise<unknown>);
  const at = migrations.findIndex((m) => m.tag.startsWith("0019_"));
  try {
    await run(migrations.slice(0, at));
    await client.exec(`
      insert into knowledge_bases (id, name, language, created_at, updated_at) values
        ('kb_de', 'de', 'german', now(), now()), ('kb_none', 'none', null, now(), now());
      insert into documents (id, kb_id, url, title, content, language, updated_at) values
        ('doc_1', 'kb_de', 'https://m.test/1', 't', 'c', 'german', now()),
        ('doc_2', 'kb_de', 'https://m.test/2', 't', 'c', 'french', now()),
        ('doc_3', 'kb_none', 'https://m.test/3', 't', 'c', 'english', now());`);
    await run(migrations.slice(at));
    const r = await store.db.execute(sql`select id, language_source as s from documents order by id`);
    expect((Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as unknown[]).toEqual([
      { id: "doc_1", s: "knowledge_base" },
      { id: "doc_2", s: "explicit" },
      { id: "doc_3", s: "detected" },
    ]);
    await expect(client.exec("update documents set language_source = 'guessed'")).rejects.toThrow(/check/);
  } finally {
    await store.close();
  }
});

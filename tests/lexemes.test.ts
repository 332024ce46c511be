/**
 * `lexemesOf`: texts read as search reads them (the knowledge base's stemmer and stop words), for
 * the built-in agent's choice of what to quote.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { lexemesOf } from "../src/knowledge/lexemes.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const { db } = await testStore();

async function baseIn(language: string | undefined, content: string): Promise<string> {
  const kb = await createKnowledgeBase(db, { name: `lexemes-${crypto.randomUUID()}`, language });
  await ingestDocuments(db, [{ url: "https://t.example/a", title: "A", content }], { kbId: kb.id });
  return kb.id;
}

test("words are stemmed and stop words dropped, as the knowledge base's language does", async () => {
  const kbId = await baseIn(undefined, "Results are paginated with an opaque cursor, newest first.");
  const [question, sentence] = await lexemesOf(db, kbId, [
    "How does pagination work?",
    "Results are paginated with an opaque cursor.",
  ]);
  expect(question).toEqual(["pagin", "work"]);
  expect(sentence).toContain("pagin");
  expect(sentence).not.toContain("are");
});

test("a French knowledge base reads French: inflected forms meet, its stop words weigh nothing", async () => {
  const kbId = await baseIn("french", "Les composants reçoivent des propriétés de leur parent.");
  const [a, b] = await lexemesOf(db, kbId, ["Comment un composant reçoit-il ses propriétés ?", "des composants"]);
  expect(a).toContain("propriet");
  expect(b).toEqual(["compos"]);
  expect(a).toContain("compos");
});

test("CJK runs are left out (the caller cuts them); nothing in, nothing out; quotes, commas, NUL and lone surrogates are text", async () => {
  const kbId = await baseIn(undefined, "Share state between components.");
  expect(await lexemesOf(db, kbId, [])).toEqual([]);
  const [mixed, punctuation, empty, nul, lone] = await lexemesOf(db, kbId, [
    "共享状态 between components",
    "\"a\", {b}, 'c'",
    "",
    "share\0state",
    "lone \ud800 surrogate",
  ]);
  expect(mixed).toEqual(["compon"]);
  expect(punctuation).toEqual([]);
  expect(empty).toEqual([]);
  expect(nul).toEqual(["share", "state"]);
  expect(lone).toEqual(["lone", "surrog"]);
});

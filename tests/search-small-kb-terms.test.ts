/**
 * The abstention's second way to answer, a page holding several of the question's known words,
 * asks for fewer of them in a small knowledge base (scaled as the unseen word's weight is): on a
 * 16-page German documentation set (eval/corpora/hafen-de.jsonl), a chatty question full of
 * words the pages never use is answered from the page holding four of its words, where five were
 * needed before; off-topic questions sharing a word or two with the pages stay refused.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { readCorpus } from "../eval/load.ts";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { rankPassages } from "../src/knowledge/search.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const { db } = await testStore();
const kb = await createKnowledgeBase(db, { name: `small-kb-terms-${crypto.randomUUID()}` });
const corpus = readCorpus(fileURLToPath(new URL("../eval/corpora/hafen-de.jsonl", import.meta.url)));
await ingestDocuments(db, corpus!.docs, { kbId: kb.id });

const QUESTION =
  "Unser Praktikant soll sich Deployments und Logs anschauen können, aber bitte nichts kaputtmachen. Welche Rolle gebe ich ihm am besten?";

test("a chatty question is answered from the page holding four of its words", async () => {
  const hits = await rankPassages(db, QUESTION, { kbId: kb.id });
  expect(hits[0]?.url).toBe("https://hafen.example/de/docs/team-und-rollen");
  // Not through coverage: the words the pages never use (anschauen, bitte, kaputtmachen…) hold it low.
  expect(hits[0]!.coverage).toBeLessThan(0.35);
  expect(hits[0]!.pageTerms).toBe(4);
});

test("five words are still asked for at full size, and off-topic questions stay refused", async () => {
  // The same knowledge base read as a large one (unseenHalfWords 0: the scale is 1).
  expect(await rankPassages(db, QUESTION, { kbId: kb.id, unseenHalfWords: 0 })).toEqual([]);
  for (const offTopic of [
    "Wann legen im Hamburger Hafen die großen Containerschiffe an, und kann man dort als Besucher zuschauen?",
    "Wie lange muss ein Rinderbraten von zwei Kilo bei 160 Grad im Ofen bleiben?",
  ])
    expect({ offTopic, hits: (await rankPassages(db, offTopic, { kbId: kb.id })).length }).toEqual({
      offTopic,
      hits: 0,
    });
});

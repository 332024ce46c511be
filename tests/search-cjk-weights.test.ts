/**
 * CJK pairs and characters score at their own weights (`pairWeight`, `charWeight`): they repeat
 * the evidence of the words they are cut from. Words, and every script but CJK, are unaffected.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { rankPassages, SEARCH_DEFAULTS } from "../src/knowledge/search.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const { db } = await testStore();
const kb = await createKnowledgeBase(db, { name: `cjk-weights-${crypto.randomUUID()}` });
await ingestDocuments(
  db,
  [
    {
      url: "https://zh.test/props",
      title: "传递数据",
      content: "父组件通过属性把数据传递给子组件，子组件需要先声明它接受的属性。",
    },
    { url: "https://en.test/props", title: "Passing data", content: "A parent passes data to a child through props." },
  ],
  { kbId: kb.id },
);
const score = async (q: string, pairWeight: number, charWeight: number) =>
  (await rankPassages(db, q, { kbId: kb.id, pairWeight, charWeight, minCoverage: 0, minPassageCoverage: 0 }))[0]
    ?.score ?? 0;

test("the defaults weigh a pair that is no word, and a character, below a word", () => {
  expect(SEARCH_DEFAULTS.pairWeight).toBeLessThan(1);
  expect(SEARCH_DEFAULTS.charWeight).toBeLessThan(1);
});

test("a question matched only through a pair and its characters scores in proportion to their weights", async () => {
  // 件通 (across 组件 and 通过) is no dictionary word: the pair 件通 and the characters 件, 通.
  const full = await score("件通", 1, 1);
  expect(full).toBeGreaterThan(0);
  expect(await score("件通", 0.5, 0.5)).toBeCloseTo(full / 2, 6);
  const pairOnly = await score("件通", 1, 0);
  const charsOnly = await score("件通", 0, 1);
  expect(pairOnly).toBeGreaterThan(0);
  expect(charsOnly).toBeGreaterThan(0);
  expect(pairOnly + charsOnly).toBeCloseTo(full, 6);
});

test("a question in a spaced script scores the same whatever the CJK weights", async () => {
  const full = await score("how does a parent pass data to a child?", 1, 1);
  expect(full).toBeGreaterThan(0);
  expect(await score("how does a parent pass data to a child?", 0.2, 0.1)).toBeCloseTo(full, 6);
});

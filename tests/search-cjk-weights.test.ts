/**
 * CJK pairs and characters score at their own weights (`pairWeight`, `charWeight`): they repeat
 * the evidence of the words they are cut from. Words, pairs of characters the segmenter left
 * alone (words its dictionary lacks), and every script but CJK are unaffected.
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
    { url: "https://zh.test/plugins", title: "插件", content: "编写一个插件并不难：插件是一个带有安装方法的对象。" },
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

test("a pair across two words' boundary scores at pairWeight; characters at charWeight", async () => {
  // 数据传递: the words 数据 and 传递, the pair 据传 across them, four characters.
  const noPairs = await score("数据传递", 0, 1);
  const pair = (await score("数据传递", 1, 1)) - noPairs;
  expect(pair).toBeGreaterThan(0);
  expect((await score("数据传递", 0.5, 1)) - noPairs).toBeCloseTo(pair / 2, 6);
  const noChars = await score("数据传递", 1, 0);
  expect((await score("数据传递", 1, 0.5)) - noChars).toBeCloseTo(((await score("数据传递", 1, 1)) - noChars) / 2, 6);
});

test("a pair of characters the segmenter left alone is a word it lacks: full weight", async () => {
  // ICU's dictionary has no 插件 (plugin): it cuts 插 件, and the pair is the word's only evidence.
  const full = await score("插件", 1, 0);
  expect(full).toBeGreaterThan(0);
  expect(await score("插件", 0.5, 0)).toBeCloseTo(full, 6);
  expect(await score("插件", 0, 0)).toBeCloseTo(full, 6);
});

test("a question in a spaced script scores the same whatever the CJK weights", async () => {
  const full = await score("how does a parent pass data to a child?", 1, 1);
  expect(full).toBeGreaterThan(0);
  expect(await score("how does a parent pass data to a child?", 0.2, 0.1)).toBeCloseTo(full, 6);
});

/**
 * A knowledge base's size, which the abstention scales an unseen word's weight by, is counted in
 * the words a reader counts: a CJK passage indexes each word with its character pairs and
 * characters, and counting those made a 16-page Korean documentation set
 * (eval/corpora/dalbit-ko.jsonl) weigh a question's unseen words as a base three times its size
 * would, refusing chatty questions its pages answer.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { readCorpus } from "../eval/load.ts";
import { rowsOf } from "../src/db/rows.ts";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { rankPassages } from "../src/knowledge/search.ts";
import { SEARCH_DEFAULTS } from "../src/knowledge/search-options.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const { db } = await testStore();
const kb = await createKnowledgeBase(db, { name: `cjk-size-${crypto.randomUUID()}` });
const corpus = readCorpus(fileURLToPath(new URL("../eval/corpora/dalbit-ko.jsonl", import.meta.url)));
await ingestDocuments(db, corpus!.docs, { kbId: kb.id });
const [stats] = await rowsOf<{ total_len: string | number; total_words: string | number }>(
  db,
  sql`select total_len, total_words from knowledge_base_stats where kb_id = ${kb.id}`,
);
const [len, words] = [Number(stats!.total_len), Number(stats!.total_words)];

test("a Korean knowledge base's size is its words, not its indexed pairs and characters", () => {
  expect(words).toBeGreaterThan(0);
  expect(words).toBeLessThan(len / 2);
});

test("a chatty question its pages answer is answered; counted by its index terms, it was refused", async () => {
  const question = "고객 명단을 CSV로 받아서 엑셀로 열었더니 이름이 전부 이상한 글자로 나와요 ㅠㅠ";
  expect((await rankPassages(db, question, { kbId: kb.id }))[0]?.url).toBe(
    "https://dalbit.example/ko/docs/data-export",
  );
  // The same knowledge base sized by its terms: the half-size scaled by their ratio.
  const bySize = { kbId: kb.id, unseenHalfWords: (SEARCH_DEFAULTS.unseenHalfWords * words) / len };
  expect(await rankPassages(db, question, bySize)).toEqual([]);
});

test("off-topic questions sharing its words stay refused", async () => {
  for (const offTopic of [
    "은행 앱에서 본인인증 문자가 안 와요. 통신사 문제인가요, 아니면 스팸 차단 때문인가요?",
    "토스로 친구한테 돈 보낼 때 하루 송금 한도가 얼마예요?",
  ])
    expect({ offTopic, hits: (await rankPassages(db, offTopic, { kbId: kb.id })).length }).toEqual({
      offTopic,
      hits: 0,
    });
});

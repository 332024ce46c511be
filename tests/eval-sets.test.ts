/**
 * The evaluation's inputs (eval/): every question and dialog set parses, dialog sets hold 20 or
 * more dialogs of each kind with a fact on every follow-up, the sample set's URLs and facts are
 * on the built-in sample's pages and those of eval/corpora/ on theirs (the other corpora live outside the repository: `bun run eval
 * --check`), and the checks that keep a set honest report what they should. Also the one
 * evaluation run that needs no external corpus: the sample set through the whole agent.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { checkAgainst, DIALOG_KINDS, isDialogFile, readCorpus, readDialogs, readQuestions } from "../eval/load.ts";
import { halves } from "../eval/measure.ts";
import { questionFigures, runQuestions } from "../eval/questions.ts";
import { withCorpus } from "../eval/store.ts";
import { SAMPLE_DOCS } from "../src/knowledge/sample.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const dir = (d: string) => fileURLToPath(new URL(`../eval/${d}/`, import.meta.url));
const files = (d: string) => readdirSync(dir(d)).map((f) => dir(d) + f);

describe("evaluation sets", () => {
  test("question sets parse, with a fact on every on-topic line and 10 off-topic questions", () => {
    for (const path of files("sets")) {
      expect(isDialogFile(path)).toBe(false);
      const qs = readQuestions(path);
      expect(qs.filter((q) => q.urls.length > 0).every((q) => q.fact)).toBe(true);
      expect(qs.filter((q) => q.urls.length === 0).length).toBe(10);
    }
  });

  test("dialog sets hold 20+ dialogs of each kind, each follow-up with a fact", () => {
    for (const path of files("dialogs")) {
      expect(isDialogFile(path)).toBe(true);
      const ds = readDialogs(path);
      for (const kind of DIALOG_KINDS) expect(ds.filter((d) => d.kind === kind).length).toBeGreaterThanOrEqual(20);
      expect(ds.every((d) => d.turns[1].fact)).toBe(true);
    }
  });

  test("the sample set's URLs and facts are on the sample's pages", () => {
    expect(checkAgainst(readQuestions(`${dir("sets")}sample-en.jsonl`), SAMPLE_DOCS)).toEqual([]);
  });

  test("the sets whose corpus is in this repository (eval/corpora/) match it", () => {
    for (const name of ["lumen-ja.jsonl", "kumo-ja.jsonl"]) {
      const corpus = readCorpus(`${dir("corpora")}${name}`);
      expect(corpus?.problems).toBe(0);
      expect(checkAgainst(readQuestions(`${dir("sets")}${name}`), corpus!.docs)).toEqual([]);
    }
  });

  test("the check reports unknown URLs, absent facts and facts given away by the question", () => {
    const url = "https://parley.example/docs/rate-limits";
    const problems = checkAgainst(
      [
        { question: "q1", urls: ["https://parley.example/nowhere"], fact: "x" },
        { question: "q2", urls: [url], fact: "ratatouille" },
        { question: "When does the quota reset at midnight UTC?", urls: [url], fact: "midnight UTC" },
        { question: "q4", urls: [url] },
        { question: "q5", urls: [url], fact: "MIDNIGHT utc" },
      ],
      SAMPLE_DOCS,
    );
    expect(problems).toEqual([
      "unknown URL https://parley.example/nowhere: q1",
      'fact "x" is on none of its pages: q1',
      'fact "ratatouille" is on none of its pages: q2',
      'fact "midnight UTC" is in the question itself: When does the quota reset at midnight UTC?',
      "no fact: q4",
    ]);
  });

  test("halves alternate within each group", () => {
    expect(halves(["in", "off", "in", "in", "off"], (x) => x)).toEqual(["A", "A", "B", "A", "B"]);
  });
});

test("the sample set through the whole agent: ranks, facts and abstentions", async () => {
  const questions = readQuestions(`${dir("sets")}sample-en.jsonl`);
  // On the run's store (initdb costs seconds): the corpus goes into a knowledge base of its own.
  const rows = await withCorpus(
    { docs: SAMPLE_DOCS, problems: 0 },
    "test",
    (base) => runQuestions(base, questions),
    await testStore(),
  );
  const f = questionFigures(rows);
  expect(f.questions).toBe(30);
  // The targets of eval/README.md: top-3 ≥ 90%, at least 9 of 10 off-topic questions refused.
  expect(f.top3).toBeGreaterThanOrEqual(0.9);
  expect(Number(f.offTopicRefused.split("/")[0])).toBeGreaterThanOrEqual(9);
  expect(f.fact).toBeGreaterThan(0.5);
  // "cited right": the share of cited pages among the question's own, each answer once.
  const answered = rows.filter((r) => r.q.urls.length > 0 && !r.refused);
  const right = answered.map(
    (r) => r.answer!.sources.filter((u) => r.q.urls.includes(u)).length / r.answer!.sources.length,
  );
  expect(f.cited).toBeCloseTo(right.reduce((a, b) => a + b, 0) / answered.length, 9);
  expect(f.cited!).toBeGreaterThan(0.5);
  expect(f.pages).toBeGreaterThanOrEqual(1);
  // A refusal holds no fact, whatever its text.
  expect(rows.filter((r) => r.refused).every((r) => !r.factFound)).toBe(true);
});

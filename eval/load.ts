/**
 * Reading the evaluation's inputs — a corpus, a question set, a dialog set — and checking a set
 * against its corpus: every URL must be a page of the corpus and every `fact` must occur
 * (case-insensitively) in the content of at least one of its URLs, or the fact share would
 * measure the set rather than the agent.
 */
import { existsSync, readFileSync } from "node:fs";
import { type KnowledgeDoc, parseJsonl } from "../src/knowledge/parse.ts";
import { SAMPLE_DOCS } from "../src/knowledge/sample.ts";

/** One question; no URLs: off-topic (the right answer is a refusal). */
export interface Question {
  question: string;
  urls: string[];
  /** A short string a right answer must contain (case-insensitive). */
  fact?: string;
}

/** Two turns: the second is measured, in the context of the first. */
export interface Dialog {
  /** same: the follow-up is answered by the first turn's page; neighbour: by a related page; new: unrelated. */
  kind: DialogKind;
  turns: [Question, Question];
}
export const DIALOG_KINDS = ["same", "neighbour", "new"] as const;
export type DialogKind = (typeof DIALOG_KINDS)[number];

export interface Corpus {
  docs: KnowledgeDoc[];
  /** Lines of the corpus files that could not be read. */
  problems: number;
}

/** `sample` (the built-in documents) or `.jsonl` files joined by commas; null when a file is missing. */
export function readCorpus(spec: string): Corpus | null {
  if (spec === "sample") return { docs: SAMPLE_DOCS, problems: 0 };
  const paths = spec.split(",");
  if (!paths.every((p) => existsSync(p))) return null;
  const parsed = paths.map((p) => parseJsonl(readFileSync(p, "utf8"), p));
  return { docs: parsed.flatMap((p) => p.docs), problems: parsed.reduce((n, p) => n + p.problems.length, 0) };
}

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .map((text, i) => ({ text, where: `${path}:${i + 1}` }))
    .filter((l) => l.text.trim());

function question(raw: unknown, where: string): Question {
  const q = raw as Question;
  if (typeof q?.question !== "string" || !Array.isArray(q.urls))
    throw new Error(`${where}: needs "question" and "urls"`);
  if (q.fact !== undefined && (typeof q.fact !== "string" || !q.fact.trim()))
    throw new Error(`${where}: "fact" must be a non-empty string`);
  return { question: q.question, urls: q.urls.map((u) => new URL(u).href), fact: q.fact };
}

/** Whether a file holds dialogs (lines with `turns`) rather than questions. */
export const isDialogFile = (path: string) => "turns" in JSON.parse(lines(path)[0]?.text ?? "{}");

export const readQuestions = (path: string): Question[] =>
  lines(path).map(({ text, where }) => question(JSON.parse(text), where));

export function readDialogs(path: string): Dialog[] {
  return lines(path).map(({ text, where }) => {
    const d = JSON.parse(text) as { kind: DialogKind; turns: unknown[] };
    if (!DIALOG_KINDS.includes(d.kind)) throw new Error(`${where}: kind must be one of ${DIALOG_KINDS.join(", ")}`);
    if (!Array.isArray(d.turns) || d.turns.length !== 2) throw new Error(`${where}: needs two turns`);
    const turns = d.turns.map((t) => question(t, where)) as [Question, Question];
    if (turns.some((t) => t.urls.length === 0)) throw new Error(`${where}: both turns need urls`);
    return { kind: d.kind, turns };
  });
}

/** What is wrong with a set against its corpus: unknown URLs, facts absent from their pages. */
export function checkAgainst(questions: Question[], docs: KnowledgeDoc[]): string[] {
  const byUrl = new Map(docs.map((d) => [new URL(d.url).href, d.content.toLowerCase()]));
  const problems: string[] = [];
  for (const q of questions) {
    for (const u of q.urls) if (!byUrl.has(u)) problems.push(`unknown URL ${u}: ${q.question}`);
    if (q.urls.length > 0 && q.fact === undefined) problems.push(`no fact: ${q.question}`);
    if (q.fact !== undefined && q.question.toLowerCase().includes(q.fact.toLowerCase()))
      problems.push(`fact "${q.fact}" is in the question itself: ${q.question}`);
    if (q.fact !== undefined && !q.urls.some((u) => byUrl.get(u)?.includes(q.fact!.toLowerCase())))
      problems.push(`fact "${q.fact}" is on none of its pages: ${q.question}`);
  }
  return problems;
}

/**
 * `bun run eval` — retrieval and answer evaluation (eval/README.md).
 *
 *   bun run eval [--all] [--only TEXT] [--misses]   every suite of catalog.ts whose corpus is present,
 *                                                   ending with markdown tables per language and per
 *                                                   dialog kind
 *   bun run eval CORPUS SET                         one question or dialog set on one corpus
 *                                                   (`sample`, or .jsonl files joined by commas)
 *   bun run eval --check                            every set against its corpus, nothing ingested
 *
 * Each set's corpus goes into a fresh in-memory PGlite (or the PostgreSQL database in
 * DATABASE_URL), into a knowledge base of its own. A question line is {"question", "urls",
 * "fact"}: a hit is a page among `urls`; no URLs means off-topic (the right answer is a refusal).
 * EVAL_LANGUAGE sets the search's language (default: the documents' commonest); EVAL_OPTIONS
 * ='[{…},{…}]' compares ranking options (SearchOptions) on one ingest, search only. One
 * `RESULT {…}` JSON line per set run.
 */
import { isLanguage, LANGUAGES } from "../src/knowledge/language.ts";
import type { SearchOptions } from "../src/knowledge/search.ts";
import { corpusPresent, SUITES, type Suite } from "./catalog.ts";
import { dialogResult, printDialogMisses, printDialogSummary, runDialogs } from "./dialogs.ts";
import { type Corpus, checkAgainst, isDialogFile, readCorpus, readDialogs, readQuestions } from "./load.ts";
import { latency, printQuestionMisses, questionFigures, questionSummary, runQuestions } from "./questions.ts";
import { type Base, withCorpus } from "./store.ts";
import { dialogTables, questionTables, type SuiteResult } from "./tables.ts";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const positional = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--only");

const language = process.env.EVAL_LANGUAGE;
if (language !== undefined && !isLanguage(language))
  throw new Error(`EVAL_LANGUAGE must be one of ${LANGUAGES.join(", ")}`);
const optionSets: SearchOptions[] = (
  process.env.EVAL_OPTIONS ? [JSON.parse(process.env.EVAL_OPTIONS)].flat() : [{}]
).map((o: SearchOptions) => ({ ...o, language }));

const fileName = (path: string) => path.split("/").at(-1)!;

/** A set's problems against its corpus, printed; whether there were none. */
function check(path: string, corpus: Corpus): boolean {
  const items = isDialogFile(path)
    ? readDialogs(path).flatMap((d) => [{ ...d.turns[0], fact: undefined }, d.turns[1]])
    : readQuestions(path);
  // A dialog's first turn needs no fact: only the follow-up is judged.
  const problems = checkAgainst(items, corpus.docs).filter((p) => !p.startsWith("no fact") || !isDialogFile(path));
  for (const p of problems) console.log(`  ${fileName(path)}: ${p}`);
  return problems.length === 0;
}

async function runSet(base: Base, path: string, suite: Pick<Suite, "name" | "language">): Promise<SuiteResult> {
  const result: SuiteResult = { name: suite.name, language: suite.language, file: fileName(path) };
  if (isDialogFile(path)) {
    const rows = await runDialogs(base, readDialogs(path));
    if (flag("--misses") || positional.length) printDialogMisses(rows);
    printDialogSummary(rows);
    result.dialogs = dialogResult(rows);
    console.log(`RESULT ${JSON.stringify({ store: base.store, dialogs: result.file, kinds: result.dialogs })}\n`);
    return result;
  }
  const questions = readQuestions(path);
  if (optionSets.length > 1) {
    for (const options of optionSets) {
      const rows = await runQuestions(base, questions, { options, agent: false });
      const line = (h?: "A" | "B") => questionSummary(questionFigures(rows, h));
      console.log(`${JSON.stringify(options)}\n  all ${line()}\n  A   ${line("A")}\n  B   ${line("B")}`);
    }
    return result;
  }
  const rows = await runQuestions(base, questions, { options: optionSets[0] });
  if (flag("--misses") || positional.length) printQuestionMisses(rows);
  const [all, A, B] = [questionFigures(rows), questionFigures(rows, "A"), questionFigures(rows, "B")];
  console.log(`all      ${questionSummary(all)}\nhalf A   ${questionSummary(A)}\nhalf B   ${questionSummary(B)}`);
  // One line a table can be built from (eval/README.md).
  console.log(`RESULT ${JSON.stringify({ store: base.store, questions: result.file, all, B })}`);
  console.log(`${latency(rows, base.store)}\n`);
  const offTopic = questions.filter((q) => q.urls.length === 0).length;
  result.questions = { all, B, offTopic };
  return result;
}

async function runSuite(suite: Suite): Promise<SuiteResult[]> {
  const corpus = readCorpus(suite.corpus);
  if (!corpus) throw new Error(`corpus not found: ${suite.corpus}`);
  for (const s of suite.sets) check(s, corpus);
  return withCorpus(corpus, suite.name, async (base) => {
    const results: SuiteResult[] = [];
    for (const s of suite.sets) {
      console.log(`${suite.language} — ${suite.name}: ${fileName(s)}`);
      results.push(await runSet(base, s, suite));
    }
    return results;
  });
}

const chosen = SUITES.filter((s) => !only || `${s.name} ${s.language} ${s.sets.join(" ")}`.includes(only));

if (flag("--check")) {
  let ok = true;
  for (const s of chosen.filter((s) => corpusPresent(s.corpus))) {
    const corpus = readCorpus(s.corpus)!;
    for (const set of s.sets) ok = check(set, corpus) && ok;
  }
  console.log(ok ? "every set matches its corpus" : "problems above");
  process.exit(ok ? 0 : 1);
}

const results: SuiteResult[] = [];
if (positional.length === 2) {
  const [corpus, set] = positional as [string, string];
  const known = SUITES.find((s) => s.sets.some((p) => fileName(p) === fileName(set)));
  const name = known?.name ?? fileName(corpus);
  results.push(...(await runSuite({ name, language: known?.language ?? "?", corpus, sets: [set] })));
} else if (positional.length === 0) {
  for (const s of chosen) {
    if (corpusPresent(s.corpus)) results.push(...(await runSuite(s)));
    else console.log(`skipped (corpus not present): ${s.language} — ${s.name}, ${s.corpus}\n`);
  }
} else {
  console.error("usage: bun run eval [--all] [--only TEXT] [--misses] | CORPUS SET | --check");
  process.exit(2);
}
if (optionSets.length === 1) console.log(`${questionTables(results)}\n${dialogTables(results)}`);

/**
 * A question set on one knowledge base: the answering page's rank in the search (top-1, top-3,
 * MRR), the whole agent's answer (the share holding its fact), and the abstentions — in-scope
 * questions refused, off-topic ones refused. A refusal is an answer citing no source (search
 * alone: no passage found). Halves alternate within in-scope and off-topic questions apart.
 */
import type { SearchOptions } from "../src/knowledge/search.ts";
import type { Question } from "./load.ts";
import { type Answer, ask, type Half, halves, holds, pct, type Ranking, rank, rankFigures, short } from "./measure.ts";
import type { Base } from "./store.ts";

export interface QuestionRow extends Ranking {
  q: Question;
  half: Half;
  /** Undefined when only the search ran. */
  answer?: Answer;
  refused: boolean;
  factFound: boolean;
  ms: number;
}

export async function runQuestions(
  base: Base,
  questions: Question[],
  { options = {}, agent = true }: { options?: SearchOptions; agent?: boolean } = {},
): Promise<QuestionRow[]> {
  const half = halves(questions, (q) => (q.urls.length ? "in" : "off"));
  const rows: QuestionRow[] = [];
  for (const [i, q] of questions.entries()) {
    const t = performance.now();
    const ranking = await rank(base, q.question, [], q.urls, options);
    const ms = performance.now() - t;
    const answer = agent ? await ask(base, q.question, []) : undefined;
    const refused = answer ? answer.sources.length === 0 : ranking.pages.length === 0;
    rows.push({ ...ranking, q, half: half[i]!, answer, refused, factFound: !!answer && holds(answer, q.fact), ms });
  }
  return rows;
}

export type QuestionFigures = ReturnType<typeof questionFigures>;

export function questionFigures(rows: QuestionRow[], half?: Half) {
  const inScope = rows.filter((r) => r.q.urls.length > 0 && (!half || r.half === half));
  const off = rows.filter((r) => r.q.urls.length === 0 && (!half || r.half === half));
  const withFact = inScope.filter((r) => r.q.fact !== undefined);
  const agent = rows.some((r) => r.answer);
  const answered = inScope.filter((r) => r.answer && !r.refused);
  return {
    questions: inScope.length,
    ...rankFigures(inScope.map((r) => r.rank)),
    /** Share of in-scope answers holding their fact; null when only the search ran. */
    fact: agent ? withFact.filter((r) => r.factFound).length / (withFact.length || 1) : null,
    /**
     * Of the pages in-scope answers cite, the share among the question's right pages (each
     * answer counts once); null when only the search ran. A lower bound: a set lists the pages
     * that answer, and a page it does not list may answer too.
     */
    cited: agent ? citedRight(answered) : null,
    /** Pages an in-scope answer cites, on average. */
    pages: agent ? answered.reduce((n, r) => n + r.answer!.sources.length, 0) / (answered.length || 1) : 0,
    /** An in-scope answer's mean length in characters: what quoting more costs the reader. */
    chars: agent ? Math.round(answered.reduce((n, r) => n + r.answer!.text.length, 0) / (answered.length || 1)) : 0,
    inScopeRefused: `${inScope.filter((r) => r.refused).length}/${inScope.length}`,
    offTopicRefused: `${off.filter((r) => r.refused).length}/${off.length}`,
  };
}

const citedRight = (rows: QuestionRow[]) =>
  rows.reduce((s, r) => {
    const cited = r.answer!.sources;
    return s + cited.filter((u) => r.q.urls.includes(u)).length / cited.length;
  }, 0) / (rows.length || 1);

export function questionSummary(f: QuestionFigures): string {
  const fact = f.fact === null ? "" : `  fact ${pct(f.fact)}  cited right ${pct(f.cited!)} of ${f.pages.toFixed(1)}`;
  return `top-1 ${pct(f.top1)}  top-3 ${pct(f.top3)}  MRR ${f.mrr.toFixed(3)}${fact}  in-scope refused ${f.inScopeRefused}  off-topic refused ${f.offTopicRefused}`;
}

/** The questions to look at: answering page not first, refusals, answers without their fact. */
export function printQuestionMisses(rows: QuestionRow[]): void {
  const inScope = rows.filter((r) => r.q.urls.length > 0);
  console.log("misses (answering page not first):");
  for (const r of inScope.filter((r) => r.rank !== 1)) {
    console.log(`  [${r.half}] ${r.rank ? `rank ${r.rank}` : "not found"}: ${r.q.question}`);
    console.log(`       want ${r.q.urls.map(short).join(" | ")}`);
    console.log(`       got  ${r.pages.slice(0, 3).map(short).join(", ") || "(nothing)"}`);
  }
  for (const r of inScope.filter((r) => r.refused)) console.log(`  in-scope but refused: ${r.q.question}`);
  for (const r of inScope.filter((r) => r.answer && !r.refused && !r.factFound))
    console.log(`  answer without "${r.q.fact}": ${r.q.question} → ${r.answer!.sources.map(short).join(", ")}`);
  for (const r of rows.filter((r) => r.q.urls.length === 0 && !r.refused)) {
    const cited = r.answer ? r.answer.sources : r.pages.slice(0, 3);
    console.log(`  off-topic but answered: ${r.q.question} → ${cited.map(short).join(", ")}`);
  }
}

export function latency(rows: QuestionRow[], store: string): string {
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  if (ms.length === 0) return "latency  (no questions)";
  return `latency  p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms (${store})`;
}

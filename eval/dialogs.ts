/**
 * A dialog set on one knowledge base. Turn one goes through the agent; turn two is measured with
 * the real history (the user's turn and the agent's answer), as a chat sends it: the answering
 * page's rank in `searchPassages(q2, history)`, the agent's answer (fact, refusal). Beside it the
 * control: turn two alone, with no history. Figures per dialog kind; halves alternate per kind.
 */
import type { ChatTurn } from "../src/agent/types.ts";
import { DIALOG_KINDS, type Dialog, type DialogKind } from "./load.ts";
import { ask, type Half, halves, holds, pct, type Ranking, rank, rankFigures, short } from "./measure.ts";
import type { Base } from "./store.ts";

/** Turn two, searched and answered in one context. */
interface Follow extends Ranking {
  refused: boolean;
  factFound: boolean;
}

export interface DialogRow {
  d: Dialog;
  half: Half;
  /** Rank of turn one's page for turn one (context for the follow-up's figures). */
  firstRank: number;
  withHistory: Follow;
  alone: Follow;
}

export async function runDialogs(base: Base, dialogs: Dialog[]): Promise<DialogRow[]> {
  const half = halves(dialogs, (d) => d.kind);
  const rows: DialogRow[] = [];
  for (const [i, d] of dialogs.entries()) {
    const [first, second] = d.turns;
    const firstRank = (await rank(base, first.question, [], first.urls)).rank;
    const firstAnswer = await ask(base, first.question, []);
    const history: ChatTurn[] = [
      { role: "user", content: first.question },
      { role: "assistant", content: firstAnswer.text },
    ];
    const follow = async (h: ChatTurn[]): Promise<Follow> => {
      const ranking = await rank(base, second.question, h, second.urls);
      const answer = await ask(base, second.question, h);
      return { ...ranking, refused: answer.sources.length === 0, factFound: holds(answer, second.fact) };
    };
    rows.push({ d, half: half[i]!, firstRank, withHistory: await follow(history), alone: await follow([]) });
  }
  return rows;
}

function followFigures(fs: Follow[]) {
  return {
    ...rankFigures(fs.map((f) => f.rank)),
    fact: fs.filter((f) => f.factFound).length / (fs.length || 1),
    refused: `${fs.filter((f) => f.refused).length}/${fs.length}`,
  };
}
export type FollowFigures = ReturnType<typeof followFigures>;

export function dialogFigures(rows: DialogRow[], kind: DialogKind, half?: Half) {
  const rs = rows.filter((r) => r.d.kind === kind && (!half || r.half === half));
  return {
    dialogs: rs.length,
    firstTop1: rankFigures(rs.map((r) => r.firstRank)).top1,
    withHistory: followFigures(rs.map((r) => r.withHistory)),
    alone: followFigures(rs.map((r) => r.alone)),
  };
}

/** Figures of every kind present, all and half B: what RESULT carries and the tables show. */
export function dialogResult(rows: DialogRow[]) {
  const kinds = DIALOG_KINDS.filter((k) => rows.some((r) => r.d.kind === k));
  return Object.fromEntries(
    kinds.map((k) => [k, { all: dialogFigures(rows, k), B: dialogFigures(rows, k, "B") }]),
  ) as Partial<Record<DialogKind, { all: DialogFigures; B: DialogFigures }>>;
}
export type DialogFigures = ReturnType<typeof dialogFigures>;

const line = (f: FollowFigures) =>
  `top-1 ${pct(f.top1)}  top-3 ${pct(f.top3)}  MRR ${f.mrr.toFixed(3)}  fact ${pct(f.fact)}  refused ${f.refused}`;

export function printDialogSummary(rows: DialogRow[]): void {
  for (const [kind, { all, B }] of Object.entries(dialogResult(rows))) {
    console.log(`${kind} (${all.dialogs} dialogs; turn one top-1 ${pct(all.firstTop1)})`);
    console.log(`  all  with history ${line(all.withHistory)}\n       alone        ${line(all.alone)}`);
    console.log(`  B    with history ${line(B.withHistory)}\n       alone        ${line(B.alone)}`);
  }
}

/** Follow-ups whose answering page is not first with the history. */
export function printDialogMisses(rows: DialogRow[]): void {
  console.log("follow-up misses (with history; answering page not first):");
  for (const r of rows.filter((r) => r.withHistory.rank !== 1)) {
    const [first, second] = r.d.turns;
    const got = r.withHistory.pages.slice(0, 3).map(short).join(", ") || "(nothing)";
    console.log(
      `  [${r.d.kind} ${r.half}] ${r.withHistory.rank ? `rank ${r.withHistory.rank}` : "not found"}: ${first.question} → ${second.question}`,
    );
    console.log(`       want ${second.urls.map(short).join(" | ")}\n       got  ${got}`);
  }
}

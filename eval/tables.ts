/**
 * The markdown tables `bun run eval` ends with, ready to paste into eval/README.md: one per
 * language for the question sets (all questions, then half B), one per dialog kind for the
 * dialog sets (each figure with the history, and in brackets the follow-up searched alone).
 */
import type { DialogFigures, dialogResult } from "./dialogs.ts";
import { DIALOG_KINDS, type DialogKind } from "./load.ts";
import { pct } from "./measure.ts";
import type { QuestionFigures } from "./questions.ts";

export interface SuiteResult {
  name: string;
  language: string;
  /** The question or dialog file's name. */
  file: string;
  questions?: { all: QuestionFigures; B: QuestionFigures; offTopic: number };
  dialogs?: ReturnType<typeof dialogResult>;
}

const KIND_TITLES: Record<DialogKind, string> = {
  same: "follow-up about the same page",
  neighbour: "follow-up answered by a related page",
  new: "unrelated new question in turn two",
};

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;

export function questionTables(results: SuiteResult[]): string {
  const out: string[] = [];
  for (const language of [...new Set(results.filter((r) => r.questions).map((r) => r.language))]) {
    out.push(`### Questions — ${language}\n`);
    out.push(
      row(["set", "half", "top-1", "top-3", "MRR", "fact", "cited right", "in-scope refused", "off-topic refused"]),
    );
    out.push(row(Array(9).fill("---")));
    for (const r of results.filter((r) => r.language === language && r.questions)) {
      const { all, B, offTopic } = r.questions!;
      for (const [half, f] of [
        ["all", all],
        ["B", B],
      ] as const) {
        const label = half === "all" ? `${r.name} (${r.file}, ${all.questions} + ${offTopic} off-topic)` : "";
        const fact = f.fact === null ? "—" : pct(f.fact);
        // The share of cited pages that are right pages, and how many an answer cites on average.
        const cited = f.cited === null ? "—" : `${pct(f.cited)} of ${f.pages.toFixed(1)}`;
        out.push(
          row([
            label,
            half,
            pct(f.top1),
            pct(f.top3),
            f.mrr.toFixed(3),
            fact,
            cited,
            f.inScopeRefused,
            f.offTopicRefused,
          ]),
        );
      }
    }
    out.push("");
  }
  return out.join("\n");
}

export function dialogTables(results: SuiteResult[]): string {
  const out: string[] = [];
  const withDialogs = results.filter((r) => r.dialogs);
  for (const kind of DIALOG_KINDS.filter((k) => withDialogs.some((r) => r.dialogs![k]))) {
    out.push(`### Dialogs — ${kind} (${KIND_TITLES[kind]}): with history (alone)\n`);
    out.push(row(["language", "set", "half", "turn-1 top-1", "top-1", "top-3", "MRR", "fact", "refused"]));
    out.push(row(Array(9).fill("---")));
    for (const r of withDialogs.filter((r) => r.dialogs![kind])) {
      const { all, B } = r.dialogs![kind]!;
      for (const [half, f] of [
        ["all", all],
        ["B", B],
      ] as const) {
        const label = half === "all" ? [r.language, `${r.name} (${r.file}, ${all.dialogs})`] : ["", ""];
        out.push(row([...label, half, pct(f.firstTop1), ...followCells(f)]));
      }
    }
    out.push("");
  }
  return out.join("\n");
}

function followCells({ withHistory: h, alone: a }: DialogFigures): string[] {
  return [
    `${pct(h.top1)} (${pct(a.top1)})`,
    `${pct(h.top3)} (${pct(a.top3)})`,
    `${h.mrr.toFixed(3)} (${a.mrr.toFixed(3)})`,
    `${pct(h.fact)} (${pct(a.fact)})`,
    `${h.refused} (${a.refused})`,
  ];
}

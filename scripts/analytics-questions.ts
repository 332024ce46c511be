/**
 * The analytics transcript's questions (made from a corpus's section headings, several
 * phrasings each, plus off-topic ones) and its scoring of the topics against how they were made.
 */
import type { AnalyticsTopic, ChatReply, PagesReport } from "../src/contract/index.ts";

export interface Lang {
  file: string;
  name: string;
  label: string;
  phrasings: ((h: string) => string)[];
  offTopic: string[];
}

export const LANGS: Lang[] = [
  {
    file: "hono-docs.jsonl",
    name: "hono",
    label: "Hono, English",
    phrasings: [(h) => `How do I use ${h}?`, (h) => `Can you explain ${h}?`, (h) => `${h} example please`],
    offTopic: [
      "What's the weather in Lisbon tomorrow?",
      "weather forecast for Lisbon",
      "Best recipe for banana bread",
      "banana bread recipe without eggs",
      "How do I change a bike tire?",
      "Who won the 2018 football World Cup?",
      "How tall is Mount Everest?",
      "Recommend a good science fiction novel",
      "How do I train a puppy to sit?",
      "What is the capital of Australia?",
    ],
  },
  {
    file: "react-fr-docs.jsonl",
    name: "react-fr",
    label: "React, français",
    phrasings: [(h) => `Comment utiliser ${h} ?`, (h) => `Peux-tu m'expliquer ${h} ?`, (h) => `Un exemple de ${h} ?`],
    offTopic: [
      "Quel temps fera-t-il à Lyon demain ?",
      "météo à Lyon ce week-end",
      "Recette de la tarte tatin",
      "tarte tatin recette facile",
      "Comment réparer un pneu de vélo ?",
      "Qui a gagné la Coupe du monde 2018 ?",
      "Quelle est la hauteur du mont Blanc ?",
      "Conseille-moi un bon roman policier",
      "Comment dresser un chiot ?",
      "Quelle est la capitale de l'Australie ?",
    ],
  },
];

const HEADINGS = 60;

export interface Question {
  text: string;
  /**
   * What it was made from: the heading's text (pages that share a heading, "Usage", are one
   * subject: their questions read the same), or `off:<n>` for off-topic ones (paraphrase pairs share n).
   */
  label: string;
  offTopic: boolean;
  rateDown: boolean;
}

export type Asked = Question & { reply: ChatReply };

/** Up to HEADINGS section headings, spread over the pages, each asked in every phrasing. */
export function generate(docs: { url: string; content: string }[], lang: Lang): Question[] {
  const headings = docs.flatMap((d) =>
    [...d.content.matchAll(/^## (.+)$/gm)]
      .map((m) => m[1]!.replace(/[`*_]/g, "").trim())
      .filter((h) => h.length >= 4 && h.length <= 60)
      .slice(0, 2)
      .map((h) => ({ url: d.url, h })),
  );
  const step = Math.max(1, Math.floor(headings.length / HEADINGS));
  const chosen = headings.filter((_, i) => i % step === 0).slice(0, HEADINGS);
  const questions: Question[] = [];
  for (const [i, { h }] of chosen.entries())
    for (const [j, phrase] of lang.phrasings.entries())
      questions.push({
        text: phrase(h),
        label: h.toLowerCase(),
        offTopic: false,
        // Every question of one heading in ten, and one other question in eight.
        rateDown: i % 10 === 3 || (i * lang.phrasings.length + j) % 8 === 5,
      });
  // Off-topic ones come in pairs of phrasings for the first two subjects.
  for (const [i, text] of lang.offTopic.entries())
    questions.push({ text, label: `off:${i < 4 ? Math.floor(i / 2) : i}`, offTopic: true, rateDown: false });
  return questions;
}

const pct = (x: number) => `${Math.round(x * 100)} %`;
const cell = (s: string | null) => (s ?? "—").replace(/\|/g, "\\|").slice(0, 70);

/** Pairwise precision and recall of the topics against the labels, and the report's Markdown lines. */
export function scoreTopics(
  asked: Asked[],
  topicOf: Map<string, string>,
  topics: AnalyticsTopic[],
  gaps: AnalyticsTopic[],
  pages: PagesReport,
  pageCount: number,
): { report: string[] } {
  const labelled = asked.map((q) => ({ ...q, topic: topicOf.get(q.reply.id) ?? "?" }));
  let samePredicted = 0;
  let sameBoth = 0;
  let sameLabel = 0;
  for (let i = 0; i < labelled.length; i++)
    for (let j = i + 1; j < labelled.length; j++) {
      const [a, b] = [labelled[i]!, labelled[j]!];
      const t = a.topic === b.topic;
      const l = a.label === b.label;
      if (t) samePredicted++;
      if (l) sameLabel++;
      if (t && l) sameBoth++;
    }
  const certainty = (qs: Asked[], c: string) => qs.filter((q) => q.reply.certainty === c).length;
  const on = asked.filter((q) => !q.offTopic);
  const off = asked.filter((q) => q.offTopic);
  const downTopics = new Set(labelled.filter((q) => q.rateDown).map((q) => q.topic));
  const offTopics = new Set(labelled.filter((q) => q.offTopic).map((q) => q.topic));
  const gapIds = new Set(gaps.map((g) => g.id));
  const pairs = ["off:0", "off:1"].map(
    (l) => new Set(labelled.filter((q) => q.label === l).map((q) => q.topic)).size === 1,
  );
  const lines = [
    "",
    `- ${topics.length} topics for ${asked.length} questions (${new Set(asked.map((q) => q.label)).size} distinct subjects).`,
    `- Pairwise precision ${pct(sameBoth / Math.max(1, samePredicted))} (two questions in one topic were made from one subject), recall ${pct(sameBoth / Math.max(1, sameLabel))} (two questions of one subject share a topic).`,
    `- Certainty, on-topic: ${certainty(on, "answered")} answered, ${certainty(on, "uncertain")} uncertain, ${certainty(on, "no_sources")} no sources; off-topic: ${certainty(off, "answered")} answered, ${certainty(off, "uncertain")} uncertain, ${certainty(off, "no_sources")} no sources.`,
    `- Off-topic subjects asked twice (in two phrasings): ${pairs.filter(Boolean).length} of ${pairs.length} share one topic.`,
    `- Gaps: ${gaps.length} topics; ${[...offTopics].filter((t) => gapIds.has(t)).length} of the ${offTopics.size} off-topic topics are gaps; of the topics with a question rated down, ${[...downTopics].filter((t) => gapIds.has(t)).length} of ${downTopics.size} are gaps (a topic is a gap when at least half its rated replies were rated down, or half its questions unanswered).`,
    "",
    "### Largest topics",
    "",
    "| size | representative question | terms | answered | rated down | page cited most |",
    "| ---: | --- | --- | ---: | ---: | --- |",
    ...topics
      .slice(0, 10)
      .map(
        (t) =>
          `| ${t.size} | ${cell(t.question)} | ${cell(t.terms.slice(0, 4).join(", "))} | ${pct(t.answered_share)} | ${t.down_share === null ? "—" : pct(t.down_share)} | ${cell(t.pages[0]?.url ?? null)} |`,
      ),
    "",
    "### Gaps (most unmet first)",
    "",
    "| size | representative question | uncertain | no sources | rated down |",
    "| ---: | --- | ---: | ---: | ---: |",
    ...gaps
      .slice(0, 12)
      .map(
        (g) =>
          `| ${g.size} | ${cell(g.question)} | ${pct(g.uncertain_share)} | ${pct(g.no_sources_share)} | ${g.down_share === null ? "—" : pct(g.down_share)} |`,
      ),
    "",
    "### Pages",
    "",
    "| list | page | citations | in replies rated down |",
    "| --- | --- | ---: | ---: |",
    ...pages.cited.slice(0, 5).map((p) => `| cited most | ${cell(p.url)} | ${p.citations} | ${p.down_citations} |`),
    ...pages.down_rated
      .slice(0, 5)
      .map((p) => `| cited in down-rated replies | ${cell(p.url)} | ${p.citations} | ${p.down_citations} |`),
    ...pages.never_cited.slice(0, 5).map((p) => `| never cited | ${cell(p.url)} | 0 | 0 |`),
    "",
    `${pages.never_cited_total} of ${pageCount} pages were never cited: the questions were made from at most two headings of about ${HEADINGS} pages, so most pages are asked about by nobody here.`,
  ];
  return { report: lines };
}

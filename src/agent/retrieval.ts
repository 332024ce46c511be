/**
 * The default agent: searches the knowledge base (knowledge/retrieve.ts: follow-ups in the
 * conversation's context) and answers extractively: the sentences and code that answer, verbatim,
 * from the best page (read whole) first, each page cited by URL (sent just before its quote opens
 * with its marker: the agent knows its sources before it writes). Language-neutral throughout:
 * sentences from `Intl.Segmenter` (every script), words as search reads them (the knowledge
 * base's stemmer and stop words; CJK words from `Intl.Segmenter`), a word's weight from how few
 * of the candidate sentences hold it (a word every sentence has weighs nothing).
 */
import type { Db } from "../db/client.ts";
import {
  contextOf,
  type SearchHit,
  type SemanticSearch,
  searchPassages,
  withWholeBestPage,
} from "../knowledge/index.ts";
import { certaintyOf } from "./certainty.ts";
import { type Extract, extract } from "./extract.ts";
import { asksForQuantity, holdsNumber } from "./quantity.ts";
import type { Agent, AgentChunk, AgentInput } from "./types.ts";
import { withUsage } from "./usage.ts";
import { termsAsSearched, termsOf } from "./words.ts";

/** Splits text into tokens that concatenate back to exactly the text: each word with the space before it. */
const tokenize = (text: string): string[] => text.match(/\s*\S+/g) ?? [];

const MAX_PAGES = 3;
// The best page's passages quoted, at most; those after the first only when they answer half as
// well (sorted best first: a third only after a second). Both chosen on eval/README.md's half A.
const MAX_BEST_PAGE_PASSAGES = 3;
const MIN_RELATIVE_SECTION = 0.5;
// A page is cited only when it answers nearly as well as the best: precision over filling three slots.
const MIN_RELATIVE_ANSWER = 0.6;
const MIN_RELATIVE_COVERAGE = 0.8;
// …and only when search ranks its page nearly as high: one passage of a page that matches as
// well as the best page's best is, more often than not, a side mention (eval/README.md).
const MIN_RELATIVE_PAGE = 0.6;

/** Options of the default agent. */
export interface RetrievalAgentOptions {
  /** Milliseconds between tokens (0: as fast as possible). Useful for demos. */
  tokenDelayMs?: number;
  /** Hybrid search (knowledge/embeddings); BM25F alone without it. */
  semantic?: SemanticSearch | undefined;
}

export function retrievalAgent(db: Db, options: RetrievalAgentOptions = {}): Agent {
  return {
    async *respond({ history, message, signal, knowledgeBaseId, trace }: AgentInput): AsyncIterable<AgentChunk> {
      const hits = knowledgeBaseId
        ? await searchPassages(db, message, history, { kbId: knowledgeBaseId }, options.semantic, trace)
        : [];
      const page = await withWholeBestPage(db, hits);
      const context = contextOf(history);
      // Nothing found (a refusal): nothing to quote, no words to read.
      const terms =
        knowledgeBaseId && page.length > 0
          ? await termsAsSearched(db, knowledgeBaseId, message, context, page)
          : termsOf;
      const chosen = withUsage(choose(extract(message, context, page, terms), asksForQuantity(message)), page);
      const urls = chosen.map((page) => page[0]!.hit.url);
      yield {
        type: "certainty",
        certainty: certaintyOf(
          chosen.flat().map((e) => e.hit),
          chosen.length,
        ),
      };
      // A part of page i opens with its marker [i+1]: the sources so far go just before it.
      for (const [n, [part, i]] of compose(chosen).entries()) {
        if (i >= 0) yield { type: "sources", sources: urls.slice(0, i + 1) };
        for (const token of tokenize(n > 0 ? `\n\n${part}` : part)) {
          signal.throwIfAborted();
          if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
          yield { type: "token", content: token };
        }
      }
      yield { type: "sources", sources: urls };
    },
  };
}

/**
 * The pages to quote, best first: the first always, with its next passages (up to
 * MAX_BEST_PAGE_PASSAGES) when they answer half as well; the others when theirs answers nearly
 * as well and covers nearly as much, and search scored their page nearly as high.
 */
function choose(extracts: Extract[], quantity: boolean): Extract[][] {
  const byPage = new Map<string, Extract[]>();
  for (const e of extracts) if (e.pieces.length) byPage.set(e.hit.url, [...(byPage.get(e.hit.url) ?? []), e]);
  const pages = [...byPage.values()].map((p) => p.sort((a, b) => b.score - a.score));
  const [first, ...rest] = pages;
  if (!first) return [];
  // The bar is what the passages search ranked answer: the best page's other sections, read for
  // its quote only (score 0), would raise it above every other page's.
  const best = Math.max(...extracts.filter((e) => e.hit.score > 0).map((e) => e.score));
  const cover = Math.max(...pages.map((p) => p[0]!.hit.coverage));
  // Whether a passage's quote answers at least this share as well as the best.
  const answers = (e: Extract, share: number) => e.score >= best * share;
  const quoted = [first[0]!, ...first.slice(1, MAX_BEST_PAGE_PASSAGES).filter((e) => answers(e, MIN_RELATIVE_SECTION))];
  // Asked how many, a best page whose quote holds no number brings its best passage that does
  // (the price under "Cost" when the page's opening matched more of the question's words).
  if (quantity && !quoted.some(holdsCount)) {
    const counted = first.find((e) => e.score > 0 && !quoted.includes(e) && holdsCount(e));
    if (counted) quoted.splice(Math.min(quoted.length, MAX_BEST_PAGE_PASSAGES - 1), 1, counted);
  }
  return [
    quoted,
    ...rest
      .filter(
        (p) =>
          answers(p[0]!, MIN_RELATIVE_ANSWER) &&
          p[0]!.hit.coverage >= cover * MIN_RELATIVE_COVERAGE &&
          p[0]!.hit.pageScore >= first[0]!.hit.pageScore * MIN_RELATIVE_PAGE,
      )
      .map((p) => p.slice(0, 1)),
  ].slice(0, MAX_PAGES);
}

/** Whether a passage's quote holds a number in its prose or tables (code's numbers are no answer). */
const holdsCount = (e: Extract) => e.pieces.some((p) => !p.code && holdsNumber(p.text));

const NOTHING_FOUND =
  "I could not find anything about that in the knowledge base, so I can't answer it from my sources. Try rephrasing the question, or ingest documents that cover it.";

/** The answer's parts (joined by a blank line), each with the index of the page it quotes (-1: none). */
function compose(chosen: Extract[][]): [string, number][] {
  if (chosen.length === 0) return [[NOTHING_FOUND, -1]];
  return chosen
    .flatMap((page, i) => page.map((e) => [e, i] as const))
    .map(([{ hit, pieces }, i]) => {
      const label = hit.heading && hit.heading !== hit.title ? `${hit.title} — ${hit.heading}` : hit.title;
      // In the passage's order: a paragraph's sentences joined by a space, blocks by a blank line.
      const blocks = new Map<number, string[]>();
      for (const p of [...pieces].sort((x, y) => x.block - y.block))
        blocks.set(p.block, [...(blocks.get(p.block) ?? []), p.text]);
      // CJK sentences follow one another without a space, as they were written.
      const gap = (out: string, t: string) => (t.includes("\n") ? "\n" : /[。！？]$/.test(out) ? "" : " ");
      const text = (texts: string[]) => texts.reduce((out, t) => (out ? `${out}${gap(out, t)}${t}` : t), "");
      return [[`[${i + 1}] ${label}:`, ...[...blocks.values()].map(text)].join("\n\n"), i];
    });
}

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
import { type Piece, piecesOf } from "./pieces.ts";
import { asksForQuantity, holdsNumber } from "./quantity.ts";
import type { Agent, AgentChunk, AgentInput } from "./types.ts";
import { MAX_CODE_CHARS, withUsage } from "./usage.ts";
import { termsAsSearched, termsOf } from "./words.ts";

export { type Piece, piecesOf, termsOf };

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
      const chosen = withUsage(choose(extract(message, context, page, terms)), page);
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
function choose(extracts: Extract[]): Extract[][] {
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
  return [
    [first[0]!, ...first.slice(1, MAX_BEST_PAGE_PASSAGES).filter((e) => answers(e, MIN_RELATIVE_SECTION))],
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

/** A passage's answer: what to quote from it, and how well it answers. */
export interface Extract {
  hit: SearchHit;
  pieces: Piece[];
  score: number;
}

const MAX_QUOTE_CHARS = 700;
/** What adjacency to the quoted paragraph is worth, in question-word weight (about one word). */
const ADJACENT_BONUS = 1;

/**
 * Weights of the message's words: rarer among the candidate pieces, heavier. The context chose
 * the pages; the message's own words choose what to quote (the earlier question's would pull a
 * new question's quote back to the old subject), unless none of them tells the pieces apart.
 */
function weightsOf(message: string[], context: string[], held: Set<string>[]): Map<string, number> {
  const n = held.length + 1;
  const weigh = (terms: string[]) => {
    const weight = new Map<string, number>();
    for (const t of new Set(terms)) {
      const w = Math.log(n / (held.filter((s) => s.has(t)).length + 0.5));
      if (w > 0) weight.set(t, w);
    }
    return weight;
  };
  const own = weigh(message);
  return own.size > 0 ? own : weigh(context);
}

const scoreOf = (terms: Set<string>, weight: Map<string, number>) =>
  [...terms].reduce((s, t) => s + (weight.get(t) ?? 0), 0);

/**
 * The words each piece answers with: its own and its section's heading's (a sentence under
 * "Change port number" is about the port). The page's title, every section's, tells none apart.
 */
function termsOfPieces(hit: SearchHit, pieces: Piece[], terms: (text: string) => string[]): Set<string>[] {
  const heading = hit.heading && hit.heading !== hit.title ? terms(hit.heading) : [];
  return pieces.map((p) => new Set([...terms(p.text), ...heading]));
}

/**
 * What each hit answers: its best sentence with the sentences after it in the same paragraph
 * while they still bear on the question (within MAX_QUOTE_CHARS), and the code block that goes
 * with them — the first one after that paragraph, or the best-scoring one — kept whole.
 */
export function extract(
  question: string,
  context: string,
  hits: SearchHit[],
  termsOfText: (text: string) => string[] = termsOf,
): Extract[] {
  const all = hits.map((h) => piecesOf(h.content));
  const terms = hits.map((h, i) => termsOfPieces(h, all[i]!, termsOfText));
  const weight = weightsOf(termsOfText(question), termsOfText(context), terms.flat());
  const quantity = asksForQuantity(question);
  return hits.map((hit, i) => {
    const pieces = all[i]!;
    const scores = terms[i]!.map((t) => scoreOf(t, weight));
    const prose = pieces.map((p, j) => ({ p, j, s: scores[j]! })).filter((x) => !x.p.code);
    const best = prose.reduce<(typeof prose)[number] | undefined>((b, x) => (!b || x.s > b.s ? x : b), undefined);
    if (!best) {
      const code = pieces.find((p) => p.code && p.text.length <= MAX_CODE_CHARS);
      return { hit, pieces: code ? [code] : [], score: code ? scores[pieces.indexOf(code)]! : 0 };
    }
    const chosen = [best.p];
    let length = best.p.text.length;
    for (let j = best.j + 1; j < pieces.length; j++) {
      const next = pieces[j]!;
      if (next.code || next.block !== best.p.block || length + next.text.length > MAX_QUOTE_CHARS) break;
      if (scores[j]! <= 0 && chosen.length > 1) break;
      chosen.push(next);
      length += next.text.length;
    }
    // A sentence announcing what follows ("…these keys:") brings it: the next paragraph, or its code.
    const last = chosen[chosen.length - 1]!;
    const announced = /[:：]$/.test(last.text) ? pieces.filter((p) => p.block === last.block + 1) : [];
    const fits = announced.reduce((n, p) => n + p.text.length, length) <= MAX_QUOTE_CHARS * 2;
    if (announced.length && !announced[0]!.code && fits) chosen.push(...announced);
    // Asked how many or how long, a quote without a number brings the best sentence that has one
    // (first among the quote's sentences of its paragraph; the answer keeps the passage's order).
    if (quantity && !chosen.some((p) => holdsNumber(p.text))) {
      const counted = prose.filter((x) => x.s > 0 && holdsNumber(x.p.text)).sort((a, b) => b.s - a.s)[0];
      if (counted) chosen.unshift(counted.p);
    }
    const introduced = announced[0]?.code && announced[0].text.length <= MAX_CODE_CHARS ? announced[0] : undefined;
    // Else the code block sharing most of the question's words (the one right after the quote: a little more).
    const code =
      introduced ??
      pieces
        .map((p, j) => ({ p, s: scores[j]! + (j > best.j && p.block <= best.p.block + 2 ? ADJACENT_BONUS : 0) }))
        .filter((x) => x.p.code && x.s > 0 && x.p.text.length <= MAX_CODE_CHARS)
        .sort((a, b) => b.s - a.s)[0]?.p;
    if (code) chosen.push(code);
    return { hit, pieces: chosen, score: best.s };
  });
}

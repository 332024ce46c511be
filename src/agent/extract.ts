/**
 * What the default agent (retrieval.ts) quotes from each passage: the sentences that answer,
 * chosen by the question's words weighted by how few candidate sentences hold them, with the code
 * block that goes with them. Verbatim: pieces are cut from the passage (pieces.ts), never edited.
 */
import type { SearchHit } from "../knowledge/index.ts";
import { type Piece, piecesOf } from "./pieces.ts";
import { asksForQuantity, holdsNumber } from "./quantity.ts";
import { quotableCode } from "./usage.ts";
import { termsOf } from "./words.ts";

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

const charsOf = (pieces: Piece[]) => pieces.reduce((n, p) => n + p.text.length, 0);
/** A sentence announcing what follows ("…these keys:"). */
const announces = (piece: Piece) => /[:：]$/.test(piece.text);

/** The best sentence and the next ones of its paragraph while they bear on the question and fit. */
function bestOnward(pieces: Piece[], scores: number[], best: number): Piece[] {
  const chosen = [pieces[best]!];
  let length = pieces[best]!.text.length;
  for (let j = best + 1; j < pieces.length; j++) {
    const next = pieces[j]!;
    if (next.code || next.block !== pieces[best]!.block || length + next.text.length > MAX_QUOTE_CHARS) break;
    if (scores[j]! <= 0 && chosen.length > 1) break;
    chosen.push(next);
    length += next.text.length;
  }
  return chosen;
}

/**
 * What each hit answers: its best sentence's paragraph whole when it fits in MAX_QUOTE_CHARS,
 * else the best sentence with the sentences after it while they still bear on the question (within
 * MAX_QUOTE_CHARS), and the code block that goes
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
    const prose = pieces.map((p, j) => ({ p, j, s: scores[j]! })).filter((x) => !x.p.code && !x.p.table);
    const best = prose.reduce<(typeof prose)[number] | undefined>((b, x) => (!b || x.s > b.s ? x : b), undefined);
    if (!best) {
      // No prose: its table, or its first code block that fits.
      const only = pieces.find((p) => p.table) ?? pieces.find(quotableCode);
      return { hit, pieces: only ? [only] : [], score: only ? scores[pieces.indexOf(only)]! : 0 };
    }
    // A paragraph that fits is quoted whole: its sentences lean on each other ("Otherwise…",
    // "For long jobs…"), and the fact is as often just before the best sentence as after it.
    const paragraph = pieces.filter((p) => p.block === best.p.block && !p.code);
    const chosen = charsOf(paragraph) <= MAX_QUOTE_CHARS ? paragraph : bestOnward(pieces, scores, best.j);
    const length = charsOf(chosen);
    // A sentence announcing what follows ("…these keys:") brings it: the next paragraph, or its code.
    const last = chosen[chosen.length - 1]!;
    const announced = announces(last) ? pieces.filter((p) => p.block === last.block + 1) : [];
    const fits = charsOf(announced) + length <= MAX_QUOTE_CHARS * 2;
    if (announced.length && !announced[0]!.code && fits) chosen.push(...announced);
    // A paragraph right after a code block that a sentence announced ("To force a check now:")
    // explains that code ("The command returns…"): the announcing paragraph and the code come too.
    const before = pieces.find((p) => quotableCode(p) && p.block === best.p.block - 1);
    const intro = before ? pieces.filter((p) => p.block === before.block - 1 && !p.code && !p.table) : [];
    const announcing =
      intro.length && announces(intro[intro.length - 1]!) && charsOf(intro) + length <= MAX_QUOTE_CHARS * 2;
    if (announcing) chosen.unshift(...intro);
    // Asked how many or how long, a quote without a number brings the best sentence that has one
    // (first among the quote's sentences of its paragraph; the answer keeps the passage's order).
    if (quantity && !chosen.some((p) => holdsNumber(p.text))) {
      const counted = prose.filter((x) => x.s > 0 && holdsNumber(x.p.text)).sort((a, b) => b.s - a.s)[0];
      if (counted) chosen.unshift(counted.p);
    }
    // A table that answers at least as well as the quote's best sentence joins it (prices, limits);
    // asked how many, any table of numbers that holds the question's words does. The passage then
    // answers as well as its table.
    const table = pieces
      .map((p, j) => ({ p, s: scores[j]! }))
      .filter((x) => x.p.table && x.s > 0 && (x.s >= best.s || (quantity && holdsNumber(x.p.text))))
      .filter((x) => !chosen.includes(x.p))
      .sort((a, b) => b.s - a.s)[0];
    if (table) chosen.push(table.p);
    const introduced = quotableCode(announced[0]) ? announced[0] : announcing ? before : undefined;
    // Else the code block sharing most of the question's words (the one right after the quote: a little more).
    const code =
      introduced ??
      pieces
        .map((p, j) => ({ p, s: scores[j]! + (j > best.j && p.block <= best.p.block + 2 ? ADJACENT_BONUS : 0) }))
        .filter((x) => quotableCode(x.p) && x.s > 0)
        .sort((a, b) => b.s - a.s)[0]?.p;
    if (code) chosen.push(code);
    return { hit, pieces: chosen, score: Math.max(best.s, table?.s ?? 0) };
  });
}

/**
 * Questions as weighted term vectors, and topics as sums of them. A question's vector is its
 * terms as the knowledge base's search reads them (knowledge/ `queryTerms`: the index's parser,
 * stemmer and stop words for its language, CJK segmentation, each term weighted by its inverse
 * document frequency in the knowledge base, framing words such as "how" or "comment" at 0). So
 * "similar" means sharing the terms that carry the question, in any language the index reads,
 * and a term the documents lack (an off-topic subject) weighs most, which keeps off-topic
 * questions together by their subject.
 *
 * The knowledge base's IDF alone is not enough: a word the documents lack weighs most, and the
 * way people phrase questions ("explain", "please", "peux-tu") is often such a word, shared by
 * questions about anything. So a word the documents lack is also weighed by its rarity among
 * the questions already asked of the knowledge base (`phrasing`, the questions' own IDF scaled
 * to 0–1): phrasing common to many questions fades as they come in, an off-topic subject only a
 * few ask about keeps its weight. Words the documents have keep theirs: their rarity there
 * already says what they are worth, and a subject many people ask about must not fade.
 *
 * A question joins the topic whose centroid is nearest by cosine similarity when that is at
 * least JOIN_SIMILARITY, else it starts a topic (single-pass "leader" clustering: each question
 * is placed once, when it arrives, so topics are incremental and a read never re-clusters).
 * JOIN_SIMILARITY is the textbook half-way point, not fitted to any set: figures on held-out
 * questions are in docs/analytics.md.
 */
import type { TermWeights } from "../db/schema-analytics.ts";

export const JOIN_SIMILARITY = 0.5;
/** A centroid keeps its heaviest terms only: bounded rows, and the tail never decides a cosine. */
export const CENTROID_TERMS = 64;
/** The terms a topic is found by (GIN-indexed), and a question looks with. */
export const INDEX_TERMS = 12;

/** A term's IDF among the `asked` questions so far, `df` of which hold it, over a term none holds: 1 for a new word, towards 0 for one every question has. */
export const phrasing = (asked: number, df: number): number =>
  Math.log((asked + 1) / (Math.min(df, asked) + 0.5)) / Math.log((asked + 1) / 0.5);

export function norm(v: TermWeights): number {
  let s = 0;
  for (const w of Object.values(v)) s += w * w;
  return Math.sqrt(s);
}

export function cosine(a: TermWeights, b: TermWeights): number {
  const na = norm(a);
  const nb = norm(b);
  if (na === 0 || nb === 0) return 0;
  let dot = 0;
  const [small, large] = Object.keys(a).length <= Object.keys(b).length ? [a, b] : [b, a];
  for (const [t, w] of Object.entries(small)) dot += w * (large[t] ?? 0);
  return dot / (na * nb);
}

/** The heaviest `n` terms, heaviest first (ties by term, so the same vector gives the same list). */
export function topTerms(v: TermWeights, n: number): string[] {
  return Object.entries(v)
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, n)
    .map(([t]) => t);
}

/** A question's vector: unit length, so every question counts the same in a centroid. */
export function unit(v: TermWeights): TermWeights {
  const n = norm(v);
  if (n === 0) return {};
  return Object.fromEntries(Object.entries(v).map(([t, w]) => [t, w / n]));
}

/** The centroid with one more question in it, cut to its heaviest CENTROID_TERMS. */
export function withMember(centroid: TermWeights, question: TermWeights): TermWeights {
  const sum: TermWeights = { ...centroid };
  for (const [t, w] of Object.entries(question)) sum[t] = (sum[t] ?? 0) + w;
  return Object.fromEntries(topTerms(sum, CENTROID_TERMS).map((t) => [t, round(sum[t]!)]));
}

const round = (w: number) => Math.round(w * 1e4) / 1e4;

/** The candidate topic a question joins: the most similar at or above JOIN_SIMILARITY, else none. */
export function nearest<T extends { centroid: TermWeights }>(
  question: TermWeights,
  candidates: T[],
): { topic: T; similarity: number } | null {
  let best: { topic: T; similarity: number } | null = null;
  for (const topic of candidates) {
    const similarity = cosine(question, topic.centroid);
    if (similarity >= JOIN_SIMILARITY && (!best || similarity > best.similarity)) best = { topic, similarity };
  }
  return best;
}

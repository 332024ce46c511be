/**
 * What search returns (`SearchHit`) and how it can be tuned (`SearchOptions`, with the defaults);
 * the statement that ranks is search.ts.
 */
import type { Language } from "./language.ts";

/** A passage found by search, with the document it comes from. */
export interface SearchHit {
  /** The passage's id. */
  id: string;
  documentId: string;
  url: string;
  title: string;
  heading: string;
  content: string;
  /** The passage's BM25F score. */
  score: number;
  /** Its page's score: what results are ordered by. */
  pageScore: number;
  /** Share (0–1) of the question's IDF mass the passage contains (search.ts: Abstention). */
  coverage: number;
  /** Its page's count of the message's own known words (the abstention's second rule). */
  pageTerms?: number;
}

/** Tuning of the ranking; the defaults are the literature's (k1, b) or chosen once, generally. */
export interface SearchOptions {
  /**
   * Search only this knowledge base (candidates are filtered in the index scan, see
   * knowledge_candidates_in). Unset: every knowledge base (benchmarks and evaluation only).
   */
  kbId?: string;
  /** Passages returned (after page grouping). */
  limit?: number;
  /** Passages returned per page at most. */
  perPage?: number;
  k1?: number;
  b?: number;
  /** Weight of one occurrence in the title and in a heading; the body counts 1. */
  titleWeight?: number;
  headingWeight?: number;
  /** Share of a page's second passage in its score (its third gets the square). */
  pageDecay?: number;
  /**
   * Abstention: the best page must cover this share of the question's IDF mass (terms in any
   * of its matching passages)…
   */
  minCoverage?: number;
  /** …and the best passage this share (words of the question near each other, not scattered). */
  minPassageCoverage?: number;
  /** Terms in more passages than this only score; they do not bring candidates in. */
  probeMaxDf?: number;
  /** Most passages scored per question. */
  maxCandidates?: number;
  /**
   * Weight, in the coverage rule, of a question term the knowledge base has never seen, as a
   * multiple of the highest (`unseenOf`) IDF of the question's known terms (BM25's own IDF
   * would make it the heaviest term: "tell" in "tell me about streaming" outweighed the subject).
   * Chosen on half A of the evaluation sets with `minCoverage` (eval/README.md).
   */
  unseenWeight?: number;
  /**
   * A knowledge base of this many words weighs an unseen term at half `unseenWeight` (a base of
   * W words at W / (W + this)): a small one has seen little of its language, so a word missing
   * from it says little about the question (the 6-document sample lacks "look" and "several").
   */
  unseenHalfWords?: number;
  /** Which of the known terms' IDFs `unseenWeight` multiplies: their mean or their maximum. */
  unseenOf?: "mean" | "max";
  /**
   * Abstention's second way to answer: a page holding at least this many of the message's own
   * known words (a long question in a person's words covers little of its mass, yet one page
   * holds several of its words), scaled by the knowledge base's size as the unseen word's weight
   * is (W / (W + `unseenHalfWords`)): a small one's pages are few and short, and hold fewer of any
   * question's words; never below two, since one shared word is no topic. Chosen leaving one
   * language out (eval/tune-abstention.ts).
   */
  minTerms?: number;
  /**
   * Weight of the conversation's context terms (those of the earlier question a follow-up
   * continues, absent from the message) relative to the message's own, in scores and coverage.
   */
  contextWeight?: number;
  /**
   * Weights, in scores, of a CJK character pair that is no dictionary word and of a single CJK
   * character (cjk.ts indexes a run as words, pairs and characters): a word's pairs and
   * characters repeat its evidence, so at full weight a long word counted several times over and
   * a Korean syllable shared by unrelated words (부 in 부모 and 내부) outweighed a real word.
   * A pair of characters the segmenter left alone is a word its dictionary lacks (插件): full
   * weight. Chosen leaving one CJK language out (eval/README.md); other scripts have neither.
   */
  pairWeight?: number;
  charWeight?: number;
  /**
   * The question's language (its text-search configuration); by default the knowledge base's
   * `language`, else the language most of its documents are in.
   */
  language?: Language | undefined;
}

export const SEARCH_DEFAULTS: Required<Omit<SearchOptions, "kbId" | "language">> = {
  limit: 8,
  perPage: 2,
  k1: 1.2,
  b: 0.75,
  titleWeight: 3,
  headingWeight: 2,
  pageDecay: 0.5,
  minCoverage: 0.4,
  minPassageCoverage: 0.35,
  probeMaxDf: 500,
  maxCandidates: 100,
  unseenWeight: 2,
  unseenHalfWords: 2_000,
  unseenOf: "max",
  contextWeight: 0.5,
  pairWeight: 0.5,
  charWeight: 0.5,
  minTerms: 5,
};

/** Wire types of the analytics a docs team reads: questions, their topics, the gaps, the pages. */
import type { Rating } from "./operate.ts";

/**
 * How sure a reply is of its answer: `answered` (sources found and cited), `uncertain` (sources
 * found, but the retrieval margin was thin, or a model answered without citing any), `no_sources`
 * (nothing in the knowledge base: the reply says it cannot answer).
 */
export const CERTAINTIES = ["answered", "uncertain", "no_sources"] as const;
export type Certainty = (typeof CERTAINTIES)[number];

/** One question asked, with how its reply went. */
export interface AnalyticsQuestion {
  /** The reply's id (msg_…); its conversation holds the question and the answer. */
  message_id: string;
  conversation_id: string;
  knowledge_base_id: string | null;
  /** Null once older than the retention (ANALYTICS_RETENTION_DAYS): counted, no longer shown. */
  question: string | null;
  /** Null for a reply stored before certainty was recorded. */
  certainty: Certainty | null;
  rating: Rating | null;
  sources: string[];
  topic_id: string;
  created_at: string;
}

/** A page cited by replies of a topic, and how often. */
export interface CitedPage {
  url: string;
  title: string | null;
  citations: number;
}

/** Similar questions of the period, together. */
export interface AnalyticsTopic {
  id: string;
  knowledge_base_id: string | null;
  /** Questions of the period in it. */
  size: number;
  /** A representative question (the one nearest its centre); null past the retention. */
  question: string | null;
  /** Its most weighty terms, as the index stems them: what the questions share. */
  terms: string[];
  /** Shares of its questions of the period (0–1). */
  answered_share: number;
  uncertain_share: number;
  no_sources_share: number;
  /** Share of its rated replies rated down (0–1); null when none was rated. */
  down_share: number | null;
  rated: number;
  pages: CitedPage[];
  /** Its questions per UTC day of the period (only days that had some). */
  days: { date: string; questions: number }[];
  first_asked_at: string;
  last_asked_at: string;
}

/** A page and how replies of the period used it. */
export interface PageUse {
  url: string;
  title: string;
  knowledge_base_id: string;
  citations: number;
  /** Citations in replies rated down. */
  down_citations: number;
}

/** GET /v1/analytics/pages. */
export interface PagesReport {
  object: "analytics.pages";
  /** Most cited first. */
  cited: PageUse[];
  /** Most cited in down-rated replies first (only pages with some). */
  down_rated: PageUse[];
  /** Pages of the knowledge bases that no reply of the period cited (oldest update first). */
  never_cited: PageUse[];
  /** How many pages are never cited in all (the list holds the first `limit`). */
  never_cited_total: number;
}

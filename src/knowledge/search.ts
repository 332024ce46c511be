/**
 * Ranked search over the knowledge base: the statement (search-statement.ts, where the ranking
 * and the abstention are described) built once per shape of options, its parameters, and its
 * rows as `SearchHit`s.
 */
import { fillPlaceholders, type Query } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "../db/client.ts";
import { builtRows } from "../db/rows.ts";
import { compoundLines } from "./compounds.ts";
import { initialsLines } from "./initials.ts";
import {
  isUnstemmed,
  LANGUAGE_CONFIGS,
  loosePairsText,
  searchableText,
  storableText,
  wordsOnlyText,
} from "./language.ts";
import { SEARCH_DEFAULTS, type SearchHit, type SearchOptions } from "./search-options.ts";
import { searchSql } from "./search-statement.ts";
import { MAX_QUESTION_CHARS, termsSql } from "./search-terms.ts";
import { stopWordsOf } from "./stop-words.ts";
import { cutWords } from "./unstemmed.ts";

export { SEARCH_DEFAULTS, type SearchHit, type SearchOptions } from "./search-options.ts";

const dialect = new PgDialect();
/**
 * The statement's text per shape, built once: drizzle composing its ~60 fragments cost a tenth
 * of a chat's server time. Shapes are few (the options a deployment uses, ~30 languages, with
 * or without a knowledge base); the bound only guards against a caller sweeping numbers.
 */
const statements = new Map<string, Query>();
const MAX_SHAPES = 256;

function searchStatement(options: SearchOptions, kind: "search" | "terms" = "search"): Query {
  const o = { ...SEARCH_DEFAULTS, ...options };
  const shape = JSON.stringify({ kind, ...o, kbId: o.kbId !== undefined, language: Boolean(o.language) });
  let built = statements.get(shape);
  if (!built) {
    if (statements.size >= MAX_SHAPES) statements.clear();
    built = dialect.sqlToQuery(kind === "search" ? searchSql(o) : termsSql(o));
    statements.set(shape, built);
  }
  return built;
}

/** The statement's parameters for `question`. */
function searchValues(question: string, options: SearchOptions, context = ""): Record<string, unknown> {
  // Cut where it may split a character in two: a lone surrogate is no text to PostgreSQL's JSON.
  const [text, ctx] = [
    storableText(question.slice(0, MAX_QUESTION_CHARS)),
    storableText(context.slice(0, MAX_QUESTION_CHARS)),
  ];
  const cfg = options.language ? LANGUAGE_CONFIGS[options.language] : undefined;
  // Each text is cut once; its reading for a language with no stemmer derives from it (the
  // statement picks one by the knowledge base's language).
  const [q, words, c, ctxWords] = [searchableText(text), wordsOnlyText(text), searchableText(ctx), wordsOnlyText(ctx)];
  return {
    q,
    words,
    ctx: c,
    ctxWords,
    qCut: cutWords(q),
    wordsCut: cutWords(words),
    ctxCut: cutWords(c),
    ctxWordsCut: cutWords(ctxWords),
    cut: options.language ? isUnstemmed(options.language) : undefined,
    stops: JSON.stringify(stopWordsOf(`${words} ${ctxWords}`, cfg)),
    loose: loosePairsText(text),
    initials: initialsLines(text),
    compounds: compoundLines(text),
    kb: options.kbId,
    cfg,
  };
}

/** The search statement as text with $n parameters, for a driver used directly (the benchmark's floor). */
export function searchQueryText(question: string, options: SearchOptions = {}): { sql: string; params: unknown[] } {
  const { sql: text, params } = searchStatement(options);
  return { sql: text, params: fillPlaceholders(params, searchValues(question, options)) };
}

/**
 * One search for `question`, with the conversation's `context` (the text a follow-up continues,
 * weighted at `contextWeight`): the ranked passages, or none (see the module comment).
 */
export async function rankPassages(
  db: Db,
  question: string,
  options: SearchOptions = {},
  context = "",
): Promise<SearchHit[]> {
  if (!/[\p{L}\p{N}]/u.test(question)) return [];
  // Not prepared: its plan must follow the knowledge base's size (db/rows.ts).
  const rows = await builtRows<Record<string, unknown>>(
    db,
    searchStatement(options),
    searchValues(question, options, context),
  );
  return rows.map((r) => ({
    id: String(r.id),
    documentId: String(r.document_id),
    url: String(r.url),
    title: String(r.title),
    heading: String(r.heading),
    content: String(r.content),
    score: Number(r.score),
    pageScore: Number(r.page_score),
    coverage: Number(r.coverage),
    pageTerms: Number(r.terms),
  }));
}

/** A term of the effective query: the lexeme searched, where it came from, its weight in coverage. */
export interface QueryTerm {
  term: string;
  from: "message" | "history";
  /** Its IDF as it counts in coverage (the context's at `contextWeight`; question words 0). */
  weight: number;
  /** Whether the knowledge base has it at all (an unseen word only weighs against coverage). */
  known: boolean;
}

/** The terms a search for `question` with `context` uses: what POST …/search shows. */
export async function queryTerms(
  db: Db,
  question: string,
  options: SearchOptions = {},
  context = "",
): Promise<QueryTerm[]> {
  const rows = await builtRows<{ lexeme: string; ctx: boolean; df: number; cw: number }>(
    db,
    searchStatement(options, "terms"),
    searchValues(question, options, context),
  );
  return rows.map((r) => ({
    term: r.lexeme,
    from: r.ctx ? "history" : "message",
    weight: Math.round(Number(r.cw) * 1000) / 1000,
    known: Number(r.df) > 0,
  }));
}

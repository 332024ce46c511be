/**
 * The knowledge base's one search entry point for agents: follow-up resolution around BM25F
 * (search.ts), fused with vector search when embeddings are configured (embeddings/hybrid.ts).
 * And which knowledge bases a key searches: its default one, or one it names and may use.
 */

import { asc, eq } from "drizzle-orm";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { Db } from "../db/client.ts";
import { chunks, knowledgeBases } from "../db/schema.ts";
import { notFound } from "../http/errors.ts";
import { isId } from "../primitives.ts";
import { inSpan, type Trace } from "../tracing/index.ts";
import { DEFAULT_KB_NAME, type KnowledgeBaseRow } from "./bases.ts";
import { nearestPassages, reciprocalRankFusion, type SemanticSearch } from "./embeddings/hybrid.ts";
import { rankPassages, SEARCH_DEFAULTS, type SearchHit, type SearchOptions } from "./search.ts";

/** A turn: one earlier message of the conversation (the shape of agent/types.ts's ChatTurn; knowledge sits below agent). */
export interface ChatTurn {
  role: "user" | "assistant";
  content: string;
}

/**
 * Passages that answer `question`, best page first (at most `perPage` passages per page), or
 * none when the question is not about this knowledge base. A follow-up is searched in the
 * context of the conversation: the previous user turn of `history` (oldest first) joins the
 * search at `contextWeight` of the message's own weight, in the ranking and in the abstention
 * (search.ts). No phrase of any language decides it: a self-contained new question is ranked by
 * its own words, which outweigh the context's; an elliptical one ("and on Deno?") takes its
 * topic from the context; and the context can only raise a question's coverage, never lower it.
 * With `semantic`, the question is embedded once and every ranking below is hybrid.
 */
export async function searchPassages(
  db: Db,
  question: string,
  history: ChatTurn[] = [],
  options: SearchOptions = {},
  semantic?: SemanticSearch,
  trace?: Trace,
): Promise<SearchHit[]> {
  const context = contextOf(history);
  if (!trace) return search(db, question, context, options, semantic);
  // The span says which search ran, where its query came from and what it found — never the
  // words (traces carry no message text: POST …/search with the conversation_id shows them).
  return inSpan(
    trace,
    "knowledge.search",
    async (span) => {
      const hits = await search(db, question, context, options, semantic);
      span.set({ "parley.search.hits": hits.length, "parley.search.pages": new Set(hits.map((h) => h.url)).size });
      return hits;
    },
    {
      "parley.kb_id": options.kbId ?? undefined,
      "parley.search.hybrid": Boolean(semantic),
      "parley.search.from_history": context !== "",
    },
  );
}

/** Most passages of the best page read for its answer (a page is at most MAX_DOCUMENT_BYTES, cut). */
const MAX_PAGE_PASSAGES = 64;

/**
 * `hits` with the best page's passages replaced by all of them, in document order: search ranks
 * pages by their best passages, but the sentence or the code block that answers often sits in
 * another section of the same page (the usage under "Install", the option in "Options"). Each
 * added passage carries its page's scores; the other pages' hits are kept as they were.
 */
export async function withWholeBestPage(db: Db, hits: SearchHit[]): Promise<SearchHit[]> {
  const best = hits[0];
  if (!best) return hits;
  const rows = await db
    .select({ id: chunks.id, heading: chunks.heading, content: chunks.content })
    .from(chunks)
    .where(eq(chunks.documentId, best.documentId))
    .orderBy(asc(chunks.ord))
    .limit(MAX_PAGE_PASSAGES);
  const found = new Map(hits.filter((h) => h.url === best.url).map((h) => [h.id, h]));
  const page = rows.map((r) => found.get(r.id) ?? { ...best, ...r, score: 0 });
  const beyond = [...found.values()].filter((h) => !rows.some((r) => r.id === h.id));
  return [...page, ...beyond, ...hits.filter((h) => h.url !== best.url)];
}

/** The conversation's context for a follow-up: the previous user turn, if any. */
export const contextOf = (history: ChatTurn[]): string =>
  [...history].reverse().find((t) => t.role === "user")?.content ?? "";

async function search(
  db: Db,
  question: string,
  context: string,
  options: SearchOptions,
  semantic?: SemanticSearch,
): Promise<SearchHit[]> {
  // One embedding per search, of the message with its context (the vector side has no weights).
  const vector =
    semantic && /[\p{L}\p{N}]/u.test(question)
      ? await semantic.embedQuestion(context ? `${question} ${context}` : question)
      : undefined;
  return semantic && vector
    ? hybridRank(db, question, context, vector, semantic, options)
    : rankPassages(db, question, options, context);
}

/** BM25F and vector ranks fused (RRF), grouped by page like BM25F's results. */
async function hybridRank(
  db: Db,
  text: string,
  context: string,
  vector: number[],
  semantic: SemanticSearch,
  options: SearchOptions,
): Promise<SearchHit[]> {
  const o = { ...SEARCH_DEFAULTS, ...options };
  const [lexical, near] = await Promise.all([
    rankPassages(db, text, { ...options, limit: semantic.depth, perPage: semantic.depth }, context),
    nearestPassages(db, semantic.embedder.model, vector, semantic.depth, options.kbId),
  ]);
  if (
    lexical.length === 0 &&
    !(semantic.minSimilarity !== undefined && (near[0]?.similarity ?? -1) >= semantic.minSimilarity)
  )
    return [];
  const fused = reciprocalRankFusion([lexical.map((h) => h.id), near.map((n) => n.id)], semantic.rrfK);
  const byId = new Map<string, SearchHit>();
  for (const n of near) byId.set(n.id, { ...n, score: 0, pageScore: 0, coverage: 0 });
  for (const h of lexical) byId.set(h.id, h);
  const ranked = [...fused.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([id, score]) => ({ ...byId.get(id)!, score }));
  // Pages as in BM25F: the best passage plus a decaying share of the next two.
  const pages = new Map<string, SearchHit[]>();
  for (const h of ranked) pages.set(h.url, [...(pages.get(h.url) ?? []), h]);
  const pageScore = (hs: SearchHit[]) => hs.slice(0, 3).reduce((s, h, i) => s + h.score * o.pageDecay ** i, 0);
  return [...pages.values()]
    .map((hs) => ({ hs, score: pageScore(hs) }))
    .sort((a, b) => b.score - a.score || (a.hs[0]!.id < b.hs[0]!.id ? -1 : 1))
    .flatMap(({ hs, score }) => hs.slice(0, o.perPage).map((h) => ({ ...h, pageScore: score })))
    .slice(0, o.limit);
}

// Which knowledge bases a key may use: an admin key every one, a chat key those granted
// (`key_knowledge_bases`); finding one by id or name, the default of a chat that names none.

/** Whether `key` may use knowledge base `id`: an admin key every one, a chat key those granted. */
export const mayUse = (key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">, id: string): boolean =>
  key.role === "admin" || key.knowledgeBaseIds.includes(id);

const kbNotFound = (ref: string, param: string) => notFound("knowledge base", ref, param);

/**
 * The knowledge base `ref` (an id, or a name) if `key` may use it; otherwise the same 404 as for
 * one that does not exist, naming `param`. What chat, search and the document routes call.
 */
export async function resolveKnowledgeBase(
  db: Db,
  key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">,
  ref: string,
  param = "knowledge_base_id",
): Promise<KnowledgeBaseRow> {
  const [row] = await db
    .select()
    .from(knowledgeBases)
    .where(isId("kb", ref) ? eq(knowledgeBases.id, ref) : eq(knowledgeBases.name, ref));
  if (!row || !mayUse(key, row.id)) throw kbNotFound(ref, param);
  return row;
}

/**
 * The knowledge base a chat without `knowledge_base_id` uses: the key's only one; else the one
 * named `default` if the key may use it; else the key's oldest. Null: the key may use none (its
 * replies then find nothing).
 */
export async function defaultKnowledgeBaseFor(
  db: Db,
  key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">,
): Promise<string | null> {
  if (key.role !== "admin" && key.knowledgeBaseIds.length === 1) return key.knowledgeBaseIds[0]!;
  const rows = await db
    .select({ id: knowledgeBases.id, name: knowledgeBases.name })
    .from(knowledgeBases)
    .orderBy(knowledgeBases.createdAt, knowledgeBases.id);
  const usable = rows.filter((r) => mayUse(key, r.id));
  return (usable.find((r) => r.name === DEFAULT_KB_NAME) ?? usable[0])?.id ?? null;
}

/** Knowledge base ids by name (the CLI's `--kb NAME`); an unknown name is an error naming it. */
export async function knowledgeBaseIdsByName(db: Db, names: string[]): Promise<string[]> {
  const rows = await db.select({ id: knowledgeBases.id, name: knowledgeBases.name }).from(knowledgeBases);
  return names.map((n) => {
    const found = rows.find((r) => r.name === n || r.id === n);
    if (!found) throw new Error(`no knowledge base named '${n}'`);
    return found.id;
  });
}

/** The knowledge bases `key` may use, oldest first (every one for an admin key). */
export async function knowledgeBasesOf(
  db: Db,
  key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">,
): Promise<KnowledgeBaseRow[]> {
  const rows = await db.select().from(knowledgeBases).orderBy(knowledgeBases.createdAt, knowledgeBases.id);
  return rows.filter((r) => mayUse(key, r.id));
}

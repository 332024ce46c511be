/** Search within one knowledge base, in wire form: what POST …/search answers and other features call. */
import type { SearchResult, SearchResults } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { searchPassages } from "./retrieve.ts";
import { queryTerms } from "./search.ts";

/**
 * The ranked passages of knowledge base `kbId` for `query`: the agent's own search (the same
 * statement, options and abstention), without a conversation's history.
 */
export async function searchKnowledgeBase(db: Db, kbId: string, query: string, limit = 8): Promise<SearchResult[]> {
  return wire(await searchPassages(db, query, [], { kbId, limit }));
}

/**
 * POST …/search: the passages, and the effective query (each term, from the query or from the
 * conversation it continues). `context`: that conversation's latest question, as the agent
 * would search it for a follow-up.
 */
export async function explainedSearch(
  db: Db,
  kbId: string,
  query: string,
  limit: number,
  context: string,
): Promise<SearchResults> {
  const history = context ? [{ role: "user" as const, content: context }] : [];
  const [hits, terms] = await Promise.all([
    searchPassages(db, query, history, { kbId, limit }),
    queryTerms(db, query, { kbId }, context),
  ]);
  return { data: wire(hits), query: { terms } };
}

function wire(hits: Awaited<ReturnType<typeof searchPassages>>): SearchResult[] {
  return hits.map((h) => ({
    document_id: h.documentId,
    url: h.url,
    title: h.title,
    heading: h.heading,
    content: h.content,
    score: h.score,
  }));
}

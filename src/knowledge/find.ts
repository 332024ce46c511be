/** Search within one knowledge base, in wire form: what POST …/search answers and other features call. */
import type { SearchResult } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { searchPassages } from "./retrieve.ts";

/**
 * The ranked passages of knowledge base `kbId` for `query`: the agent's own search (the same
 * statement, options and abstention), without a conversation's history.
 */
export async function searchKnowledgeBase(db: Db, kbId: string, query: string, limit = 8): Promise<SearchResult[]> {
  const hits = await searchPassages(db, query, [], { kbId, limit });
  return hits.map((h) => ({
    document_id: h.documentId,
    url: h.url,
    title: h.title,
    heading: h.heading,
    content: h.content,
    score: h.score,
  }));
}

/**
 * The one place the model agent asks the knowledge base for passages (the retrieval work's
 * ranking lives in knowledge/search.ts; switch it here). Same relevance rule as the retrieval
 * agent: a passage must contain enough of the question's terms; a follow-up that refers back
 * ("how do I sign it?") or finds nothing alone is searched together with the previous question.
 */
import type { Db } from "../../db/client.ts";
import { queryTerms, type SearchHit, searchPassages, searchTerms, termsNeeded } from "../../knowledge/search.ts";
import type { ChatTurn } from "../types.ts";

const REFERS_BACK = /\b(it|its|that|this|those|these|them|they|one|ones)\b/i;
const MAX_PASSAGES = 5;

export type Passage = Pick<SearchHit, "url" | "title" | "heading" | "content">;

export async function findPassages(db: Db, message: string, history: ChatTurn[]): Promise<Passage[]> {
  const previous = [...history].reverse().find((t) => t.role === "user")?.content;
  let hits = await relevant(db, message);
  if (previous && (hits.length === 0 || REFERS_BACK.test(message))) hits = await relevant(db, `${message} ${previous}`);
  const seen = new Set<string>();
  return hits
    .filter((h) => {
      const k = `${h.url}#${h.heading}#${h.content.slice(0, 64)}`;
      return seen.has(k) ? false : (seen.add(k), true);
    })
    .slice(0, MAX_PASSAGES);
}

async function relevant(db: Db, question: string): Promise<SearchHit[]> {
  const terms = await searchTerms(db, queryTerms(question));
  const need = termsNeeded(terms.length);
  return (await searchPassages(db, terms)).filter((h) => h.matched >= need);
}

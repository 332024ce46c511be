/**
 * The one place the model agent asks the knowledge base for passages: the same BM25F search
 * as the retrieval agent (knowledge/search.ts), which also resolves follow-ups ("how do I sign
 * it?") with the previous question and abstains (returns nothing) on off-topic questions.
 */
import type { Db } from "../../db/client.ts";
import type { SearchHit, SemanticSearch } from "../../knowledge/index.ts";
import { searchPassages } from "../../knowledge/index.ts";
import type { Trace } from "../../tracing/index.ts";
import type { ChatTurn } from "../types.ts";

const MAX_PASSAGES = 5;

/** `coverage`: how much of the question it holds (absent for a passage found by other means). */
export type Passage = Pick<SearchHit, "url" | "title" | "heading" | "content"> & Partial<Pick<SearchHit, "coverage">>;

/** Passages of knowledge base `kbId` only; none without one. */
export async function findPassages(
  db: Db,
  message: string,
  history: ChatTurn[],
  kbId: string | null,
  semantic?: SemanticSearch,
  trace?: Trace,
): Promise<Passage[]> {
  if (!kbId) return [];
  return (await searchPassages(db, message, history, { kbId }, semantic, trace)).slice(0, MAX_PASSAGES);
}

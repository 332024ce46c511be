/**
 * What one question is measured by: where the answering page ranks in the search the agent uses,
 * and what the whole agent (agent/retrieval.ts) answers — its text, the sources it cites (none: it
 * refused), and whether the text holds the expected fact.
 */
import { retrievalAgent } from "../src/agent/retrieval.ts";
import type { ChatTurn } from "../src/agent/types.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import type { SearchOptions } from "../src/knowledge/search.ts";
import type { Base } from "./store.ts";

export type Half = "A" | "B";

/** The pages a search found, best first, and the 1-based rank of the first right one (0: none). */
export interface Ranking {
  pages: string[];
  rank: number;
}

export interface Answer {
  text: string;
  sources: string[];
}

export async function rank(
  base: Base,
  question: string,
  history: ChatTurn[],
  urls: string[],
  options: SearchOptions = {},
): Promise<Ranking> {
  const hits = await searchPassages(base.db, question, history, { ...options, kbId: base.kbId });
  const pages = [...new Set(hits.map((h) => h.url))];
  return { pages, rank: pages.findIndex((u) => urls.includes(u)) + 1 };
}

/** The agent's whole reply to `message` after `history`, as a chat would get it. */
export async function ask(base: Base, message: string, history: ChatTurn[]): Promise<Answer> {
  const agent = retrievalAgent(base.db);
  let text = "";
  let sources: string[] = [];
  const input = { history, message, knowledgeBaseId: base.kbId, signal: new AbortController().signal };
  for await (const chunk of agent.respond(input)) {
    if (chunk.type === "token") text += chunk.content;
    else if (chunk.type === "sources") sources = chunk.sources;
  }
  return { text, sources };
}

/** Whether an answer holds the fact (case-insensitive); a refusal holds none. */
export const holds = (answer: Answer, fact: string | undefined) =>
  fact !== undefined && answer.sources.length > 0 && answer.text.toLowerCase().includes(fact.toLowerCase());

/** Gives each item its half, alternating A, B within each group (`groupOf`), in file order. */
export function halves<T>(items: T[], groupOf: (item: T) => string): Half[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const n = seen.get(groupOf(item)) ?? 0;
    seen.set(groupOf(item), n + 1);
    return n % 2 === 0 ? "A" : "B";
  });
}

/** Top-1, top-3 and MRR of rankings. */
export function rankFigures(ranks: number[]) {
  const n = ranks.length || 1;
  return {
    top1: ranks.filter((r) => r === 1).length / n,
    top3: ranks.filter((r) => r >= 1 && r <= 3).length / n,
    mrr: ranks.reduce((s, r) => s + (r ? 1 / r : 0), 0) / n,
  };
}

export const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
export const short = (u: string) => u.replace(/^https?:\/\/[^/]+/, "");

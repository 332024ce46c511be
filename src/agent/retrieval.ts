/**
 * The default agent: retrieves passages with the knowledge base's BM25F search
 * (knowledge/search.ts) and answers extractively (extract.ts): the sentences and the code that
 * answer, quoted verbatim from the best page first, each page cited by URL. Follow-ups are
 * searched in the context of the conversation (knowledge/retrieve.ts).
 */
import type { Db } from "../db/client.ts";
import type { SemanticSearch } from "../knowledge/index.ts";
import { contextOf, searchPassages } from "../knowledge/index.ts";
import { type Extract, extract } from "./extract.ts";
import type { Agent, AgentChunk, AgentInput } from "./types.ts";

/** Splits text into tokens that concatenate back to exactly the text: each word with the space before it. */
const tokenize = (text: string): string[] => text.match(/\s*\S+/g) ?? [];

const MAX_PAGES = 3;
// A page is cited only when it answers nearly as well as the best one: precision over filling
// three slots (a page that shares a word or two with the question is not a source).
const MIN_RELATIVE_ANSWER = 0.6;
const MIN_RELATIVE_COVERAGE = 0.8;

/** Options of the default agent. */
export interface RetrievalAgentOptions {
  /** Milliseconds between tokens (0: as fast as possible). Useful for demos. */
  tokenDelayMs?: number;
  /** Hybrid search (knowledge/embeddings); BM25F alone without it. */
  semantic?: SemanticSearch | undefined;
}

export function retrievalAgent(db: Db, options: RetrievalAgentOptions = {}): Agent {
  return {
    async *respond({ history, message, signal, knowledgeBaseId, trace }: AgentInput): AsyncIterable<AgentChunk> {
      const hits = knowledgeBaseId
        ? await searchPassages(db, message, history, { kbId: knowledgeBaseId }, options.semantic, trace)
        : [];
      const chosen = choose(extract(message, contextOf(history), hits));
      const answer = compose(chosen);
      for (const token of tokenize(answer)) {
        signal.throwIfAborted();
        if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
        yield { type: "token", content: token };
      }
      yield { type: "sources", sources: chosen.map((page) => page[0]!.hit.url) };
    },
  };
}

/**
 * The pages to quote, best first, each with its best-answering passage: the first page always
 * (and its second passage too when that answers nearly as well: the page that answers often
 * holds the usage in one section, the details in the next), the others only when their passage
 * answers nearly as well and covers nearly as much of the question (search.ts: coverage).
 */
function choose(extracts: Extract[]): Extract[][] {
  const byPage = new Map<string, Extract[]>();
  for (const e of extracts)
    if (e.pieces.length)
      byPage.set(
        e.hit.url,
        [...(byPage.get(e.hit.url) ?? []), e].sort((a, b) => b.score - a.score),
      );
  const pages = [...byPage.values()];
  const [first, ...rest] = pages;
  if (!first) return [];
  const best = Math.max(...pages.map((p) => p[0]!.score));
  const cover = Math.max(...pages.map((p) => p[0]!.hit.coverage));
  const answers = (e: Extract | undefined) => e !== undefined && e.score >= best * MIN_RELATIVE_ANSWER;
  return [
    first.slice(0, answers(first[1]) ? 2 : 1),
    ...rest
      .filter((p) => answers(p[0]) && p[0]!.hit.coverage >= cover * MIN_RELATIVE_COVERAGE)
      .map((p) => p.slice(0, 1)),
  ].slice(0, MAX_PAGES);
}

function compose(chosen: Extract[][]): string {
  if (chosen.length === 0) {
    return "I could not find anything about that in the knowledge base, so I can't answer it from my sources. Try rephrasing the question, or ingest documents that cover it.";
  }
  const parts = chosen
    .flatMap((page, i) => page.map((e) => [e, i] as const))
    .map(([{ hit, pieces }, i]) => {
      const label = hit.heading && hit.heading !== hit.title ? `${hit.title} — ${hit.heading}` : hit.title;
      // In the passage's order: a paragraph's sentences joined by a space, blocks by a blank line.
      const blocks = new Map<number, string[]>();
      for (const p of [...pieces].sort((x, y) => x.block - y.block))
        blocks.set(p.block, [...(blocks.get(p.block) ?? []), p.text]);
      const text = (texts: string[]) =>
        texts.reduce((out, t) => (out ? `${out}${t.includes("\n") ? "\n" : " "}${t}` : t), "");
      return [`[${i + 1}] ${label}:`, ...[...blocks.values()].map(text)].join("\n\n");
    });
  return parts.join("\n\n");
}

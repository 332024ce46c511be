/**
 * The default agent: retrieves passages with the knowledge base's BM25F search
 * (knowledge/search.ts) and answers extractively, quoting the best paragraph of the best
 * passage of each of the top pages and citing those pages' URLs. Follow-ups are resolved by
 * the search (it reads the conversation's previous question when the message refers back).
 */
import type { Db } from "../db/client.ts";
import type { SearchHit, SemanticSearch } from "../knowledge/index.ts";
import { searchPassages } from "../knowledge/index.ts";
import type { Agent, AgentChunk, AgentInput } from "./types.ts";

const STOP = new Set(
  "a an and are as at be but by can do does for from has have how i if in into is it its me my of on or our so that the their them then there these they this to was we what when where which who why will with you your".split(
    " ",
  ),
);
/** Splits text into tokens that concatenate back to exactly the text: each word with the space before it. */
const tokenize = (text: string): string[] => text.match(/\s*\S+/g) ?? [];

const MAX_PAGES = 3;
const MAX_PARAGRAPH_CHARS = 600;
// A page far below the best one shares a word or two with the question, not its subject.
const MIN_RELATIVE_SCORE = 0.3;

/** The content words of a text, reduced to a crude stem for scoring paragraphs. */
const stems = (text: string) =>
  new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .filter((w) => w.length > 1 && !STOP.has(w))
      .map((w) => w.slice(0, 5)),
  );

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
      const chosen = choose(hits);
      const answer = compose(message, chosen);
      for (const token of tokenize(answer)) {
        signal.throwIfAborted();
        if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
        yield { type: "token", content: token };
      }
      yield { type: "sources", sources: chosen.map((h) => h.url) };
    },
  };
}

/** The best passage of each of the top pages, dropping pages far below the first. */
function choose(hits: SearchHit[]): SearchHit[] {
  const top = hits[0]?.pageScore ?? 0;
  const seen = new Set<string>();
  return hits
    .filter((h) => h.pageScore >= top * MIN_RELATIVE_SCORE && !seen.has(h.url) && (seen.add(h.url), true))
    .slice(0, MAX_PAGES);
}

function compose(question: string, hits: SearchHit[]): string {
  if (hits.length === 0) {
    return "I could not find anything about that in the knowledge base, so I can't answer it from my sources. Try rephrasing the question, or ingest documents that cover it.";
  }
  const wanted = stems(question);
  const parts = hits.map((h, i) => {
    const label = h.heading && h.heading !== h.title ? `${h.title} — ${h.heading}` : h.title;
    return `[${i + 1}] ${label}:\n${bestParagraph(h.content, wanted)}`;
  });
  const intro =
    hits.length === 1 ? "Here is what the knowledge base says:" : "Here is what I found in the knowledge base:";
  return `${intro}\n\n${parts.join("\n\n")}`;
}

/** The prose paragraph sharing most words with the question (code blocks and tables skipped). */
function bestParagraph(content: string, wanted: Set<string>): string {
  const paragraphs = content
    .replace(/```[\s\S]*?```/g, "")
    .split(/\n{2,}/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    // Tables, HTML and stray import lines (from MDX pages) are not prose.
    .filter((p) => p.length > 20 && !/^(\||<|import |export )/.test(p));
  if (paragraphs.length === 0) return shorten(content.replace(/\s+/g, " ").trim());
  let best = paragraphs[0]!;
  let bestScore = -1;
  for (const p of paragraphs) {
    const have = stems(p);
    const score = [...wanted].filter((w) => have.has(w)).length;
    if (score > bestScore) [best, bestScore] = [p, score];
  }
  return shorten(best);
}

function shorten(text: string): string {
  if (text.length <= MAX_PARAGRAPH_CHARS) return text;
  const cut = text.slice(0, MAX_PARAGRAPH_CHARS);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("? "), cut.lastIndexOf("! "));
  return end > MAX_PARAGRAPH_CHARS / 2 ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(" "))}…`;
}

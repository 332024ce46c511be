/**
 * The default agent: retrieves passages from the knowledge base with PostgreSQL full-text
 * search and answers extractively, quoting the best paragraph of each top passage and citing
 * the documents' URLs. Follow-ups that point back ("and how do I test it?") or find nothing on
 * their own borrow terms from the previous question; one that names a new topic ("and what are
 * the rate limits?") is answered on that topic.
 */
import type { Db } from "../db/client.ts";
import { queryTerms, type SearchHit, searchPassages, searchTerms, termsNeeded } from "../knowledge/search.ts";
import { type Agent, type AgentChunk, type AgentInput, type ChatTurn, tokenize } from "./types.ts";

const STOP = new Set(
  "a an and are as at be but by can do does for from has have how i if in into is it its me my of on or our so that the their them then there these they this to was we what when where which who why will with you your".split(
    " ",
  ),
);
// Words that refer back to the conversation's topic rather than naming one.
const REFERS_BACK = /\b(it|its|that|this|those|these|them|they|one|ones)\b/i;
const MAX_PASSAGES = 3;
const MAX_PARAGRAPH_CHARS = 600;
const MIN_RELATIVE_RANK = 0.3;

/** The content words of a text, reduced to a crude stem for scoring paragraphs. */
const stems = (text: string) =>
  new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w)).map((w) => w.slice(0, 5)));

/** Options of the default agent. */
export interface RetrievalAgentOptions {
  /** Milliseconds between tokens (0: as fast as possible). Useful for demos. */
  tokenDelayMs?: number;
}

export function retrievalAgent(db: Db, options: RetrievalAgentOptions = {}): Agent {
  return {
    async *respond({ history, message, signal }: AgentInput): AsyncIterable<AgentChunk> {
      const hits = await retrieve(db, message, history);
      const chosen = dedupe(hits).slice(0, MAX_PASSAGES);
      const answer = compose(message, chosen);
      for (const token of tokenize(answer)) {
        signal.throwIfAborted();
        if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
        yield { type: "token", content: token };
      }
      yield { type: "sources", sources: [...new Set(chosen.map((h) => h.url))] };
    },
  };
}

/** The passages the agent answers from, best first (exported for the eval). */
export async function retrieve(db: Db, message: string, history: ChatTurn[] = []): Promise<SearchHit[]> {
  const previous = [...history].reverse().find((t) => t.role === "user")?.content;
  let hits = await relevant(db, message);
  if (previous && (hits.length === 0 || REFERS_BACK.test(message))) {
    // The combined query still contains every word of the message; the earlier question
    // supplies the topic that "it" or "that" refers to.
    hits = await relevant(db, `${message} ${previous}`);
  }
  return hits;
}

/**
 * Passages about the question: containing enough of its terms (termsNeeded), and not far below
 * the best one in rank (those only match a stray word).
 */
async function relevant(db: Db, question: string): Promise<SearchHit[]> {
  const terms = await searchTerms(db, queryTerms(question));
  const need = termsNeeded(terms.length);
  const hits = (await searchPassages(db, terms)).filter((h) => h.matched >= need);
  const top = hits[0]?.rank ?? 0;
  return hits.filter((h) => h.rank >= top * MIN_RELATIVE_RANK);
}

function dedupe(hits: SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => {
    const k = `${h.url}#${h.heading}#${h.content.slice(0, 64)}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
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
  const intro = hits.length === 1 ? "Here is what the knowledge base says:" : "Here is what I found in the knowledge base:";
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

/**
 * `bun eval/transcript.ts CORPUS "question 1" "question 2" …`: one conversation through the
 * built-in agent on a corpus, each turn with its effective query (the search's terms, from the
 * message or the conversation's history: what POST …/search shows with a conversation_id), the
 * answer and its sources. Markdown on stdout (eval/transcripts.md holds the ones we keep).
 */
import { retrievalAgent } from "../src/agent/retrieval.ts";
import type { ChatTurn } from "../src/agent/types.ts";
import { explainedSearch } from "../src/knowledge/find.ts";
import { contextOf } from "../src/knowledge/retrieve.ts";
import { readCorpus } from "./load.ts";
import { withCorpus } from "./store.ts";

const [spec, ...questions] = process.argv.slice(2);
const corpus = spec ? readCorpus(spec) : null;
if (!corpus || questions.length === 0) {
  console.error('usage: bun eval/transcript.ts CORPUS "question 1" "question 2" …');
  process.exit(2);
}
await withCorpus(corpus, "transcript", async ({ db, kbId }) => {
  const agent = retrievalAgent(db);
  const history: ChatTurn[] = [];
  for (const [i, question] of questions.entries()) {
    const { query } = await explainedSearch(db, kbId, question, 8, contextOf(history));
    const terms = (from: string) =>
      query.terms
        .filter((t) => t.from === from && t.weight > 0)
        .map((t) => `${t.term}${t.known ? "" : "?"} ${t.weight.toFixed(2)}`)
        .join(", ") || "—";
    let answer = "";
    let sources: string[] = [];
    for await (const c of agent.respond({
      message: question,
      history,
      knowledgeBaseId: kbId,
      signal: new AbortController().signal,
    }))
      if (c.type === "token") answer += c.content;
      else if (c.type === "sources") sources = c.sources;
    console.log(`### Turn ${i + 1}: ${question}\n`);
    console.log(`- effective query, from the message: ${terms("message")}`);
    console.log(`- from the history: ${terms("history")}`);
    console.log(`- sources: ${sources.join(" ") || "none (refused)"}\n`);
    console.log(
      `${answer
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n")}\n`,
    );
    history.push({ role: "user", content: question }, { role: "assistant", content: answer });
  }
});
process.exit(0);

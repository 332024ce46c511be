/**
 * What the model is sent: the system prompt with the numbered passages (title, URL, text), the
 * earlier turns that fit the history budget (newest kept), then the message. What the answer
 * cites is read by citations.ts as it streams.
 */
import type { ModelMessage } from "ai";
import type { ChatTurn } from "../types.ts";
import type { Passage } from "./passages.ts";

const MAX_PASSAGE_CHARS = 4_000;

/**
 * The instructions, then the numbered passages; with `searchCalls`, the model is also told it may
 * search for more (search-tool.ts numbers what it finds after these).
 */
export function systemPrompt(base: string, passages: Passage[], searchCalls = 0): string {
  const tool =
    searchCalls > 0
      ? `\n\nYou may call the \`search\` tool (at most ${searchCalls} times) when these passages do not answer the question. Its passages are numbered after these; cite them the same way.`
      : "";
  if (passages.length === 0) {
    return searchCalls > 0
      ? `${base}${tool}\n\nNo passage in the knowledge base matched the question as asked. Search with other words; if nothing answers it, tell the user you could not find it in the knowledge base; do not make up an answer.`
      : `${base}\n\nNo passage in the knowledge base matches this question. Tell the user you could not find it in the knowledge base; do not make up an answer.`;
  }
  const blocks = passages.map((p, i) => passageBlock(p, i + 1));
  return `${base}${tool}\n\nPassages from the knowledge base for the latest question:\n\n${blocks.join("\n\n")}`;
}

/** One passage as the model sees it: `[n] title — heading`, its URL, its text (bounded). */
export function passageBlock(p: Passage, n: number): string {
  const label = p.heading && p.heading !== p.title ? `${p.title} — ${p.heading}` : p.title;
  const text = p.content.length > MAX_PASSAGE_CHARS ? `${p.content.slice(0, MAX_PASSAGE_CHARS)}…` : p.content;
  return `[${n}] ${label}\nURL: ${p.url}\n${text}`;
}

/**
 * Earlier turns, newest first until the budget (characters) is spent, then the message. Whole
 * turns only; the kept history starts with a user turn (Anthropic requires it). Two user turns
 * in a row (a question whose reply failed) are sent as they are: the Anthropic provider merges
 * them into one message, OpenAI-compatible servers accept them.
 */
export function conversation(history: ChatTurn[], message: string, budgetChars: number): ModelMessage[] {
  const kept: ChatTurn[] = [];
  let used = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i]!;
    if (used + turn.content.length > budgetChars) break;
    used += turn.content.length;
    kept.unshift(turn);
  }
  while (kept[0]?.role === "assistant") kept.shift();
  return [...kept, { role: "user" as const, content: message }].map((t) => ({ role: t.role, content: t.content }));
}

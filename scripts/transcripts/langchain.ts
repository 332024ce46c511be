/**
 * LangChain's `ChatOpenAI`, over Chat Completions and with `useResponsesApi` (Responses): invoke,
 * a follow-up (the history as messages; previous_response_id), and a refused model, each.
 */
import { AIMessage, type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import {
  ctx,
  expectAnchored,
  expectCited,
  expectContinued,
  FOLLOW_UP,
  newestConversation,
  QUESTION,
  refused,
  show,
  step,
  type Transcript,
} from "./record.ts";
import { KB } from "./server.ts";

type Message = AIMessage | AIMessageChunk;

const textOf = (m: Message) =>
  typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? String(p.text) : "")).join("");

/** What LangChain keeps of the citations: annotations on content blocks (Responses), or anything in the metadata. */
function citationsOf(m: Message): { at: string; citations: unknown[] } {
  if (Array.isArray(m.content)) {
    const annotations = m.content.flatMap((b) => ((b as { annotations?: unknown[] }).annotations ?? []) as unknown[]);
    return { at: "message.content[i].annotations", citations: annotations };
  }
  const kept = [m.additional_kwargs?.annotations, m.response_metadata?.annotations].find(Array.isArray);
  return {
    at: "message.additional_kwargs / message.response_metadata (annotations)",
    citations: (kept as unknown[]) ?? [],
  };
}

/** LangChain's citation blocks' spans (camelCase). */
const spans = (citations: unknown[]) =>
  (citations as { url?: string; startIndex?: number; endIndex?: number }[]).flatMap((c) =>
    c.url && c.startIndex !== undefined && c.endIndex !== undefined
      ? [{ start: c.startIndex, end: c.endIndex, url: c.url }]
      : [],
  );

async function variant(useResponsesApi: boolean): Promise<Transcript> {
  const where = `LangChain ChatOpenAI, useResponsesApi: ${useResponsesApi}`;
  const options = { model: KB, configuration: { baseURL: `${ctx.served.url}/v1` }, maxRetries: 0, useResponsesApi };
  const llm = new ChatOpenAI({ ...options, apiKey: ctx.served.key });
  const made = `const llm = new ChatOpenAI(${show({ ...options, apiKey: "prl_…" })});\n`;
  const dropped = useResponsesApi
    ? undefined
    : "LangChain drops Chat Completions annotations; the answer text carries them as links";

  const m = await llm.invoke(QUESTION);
  const c = citationsOf(m);
  const first = step("Ask: invoke", `${made}await llm.invoke(${show(QUESTION)})`, {
    text: textOf(m),
    citationsAt: c.at,
    citations: c.citations,
  });
  first.notes.push(`content is ${typeof m.content === "string" ? "a string" : `${m.content.length} content block(s)`}`);
  first.notes.push(
    `response_metadata keys: ${Object.keys(m.response_metadata ?? {}).join(", ")}; id: ${m.response_metadata?.id ?? m.id}`,
  );
  expectCited(first, where, c.citations.length, dropped);
  expectAnchored(first, where, textOf(m), spans(c.citations));

  let next: Message;
  let followUp: string;
  if (useResponsesApi) {
    const opts = { previous_response_id: String(m.response_metadata?.id ?? m.id) };
    followUp = `await llm.invoke(${show(FOLLOW_UP)}, ${show(opts)})`;
    next = await llm.invoke(FOLLOW_UP, opts as never);
  } else {
    followUp = `await llm.invoke([new HumanMessage(${show(QUESTION)}), new AIMessage(/* the answer */), new HumanMessage(${show(FOLLOW_UP)})])`;
    next = await llm.invoke([new HumanMessage(QUESTION), new AIMessage(textOf(m)), new HumanMessage(FOLLOW_UP)]);
  }
  const n = citationsOf(next);
  const second = step(
    useResponsesApi ? "Follow-up: previous_response_id" : "Follow-up: the history as messages",
    followUp,
    {
      text: textOf(next),
      citationsAt: n.at,
      citations: n.citations,
    },
  );
  expectCited(second, where, n.citations.length, dropped);
  expectAnchored(second, where, textOf(next), spans(n.citations));
  await expectContinued(second, where, await newestConversation());

  const bad = new ChatOpenAI({ ...options, model: "no-such-kb", apiKey: ctx.served.key });
  const third = await refused(
    step(
      "Refused: a knowledge base that does not exist",
      `await new ChatOpenAI(${show({ ...options, model: "no-such-kb", apiKey: "prl_…" })}).invoke(${show(QUESTION)})`,
    ),
    where,
    () => bad.invoke(QUESTION),
  );
  return {
    title: `LangChain — ChatOpenAI${useResponsesApi ? " with useResponsesApi (Responses)" : " (Chat Completions)"}`,
    about: `\`@langchain/openai\`'s \`ChatOpenAI\`, \`useResponsesApi: ${useResponsesApi}\`.`,
    steps: [first, second, third],
  };
}

export const langchain = async (): Promise<Transcript[]> => [await variant(false), await variant(true)];

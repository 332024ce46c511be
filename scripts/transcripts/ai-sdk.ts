/**
 * The AI SDK: `@ai-sdk/openai` (its default model speaks Responses; Parley's citations come out as
 * `sources`) and `@ai-sdk/openai-compatible` (Chat Completions). generateText, a streamText
 * follow-up, and a refusal, each.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type LanguageModel, type ModelMessage, streamText } from "ai";
import {
  ctx,
  expectCited,
  expectContinued,
  expectLinked,
  FOLLOW_UP,
  newestConversation,
  QUESTION,
  refused,
  show,
  step,
  type Transcript,
} from "./record.ts";
import { KB } from "./server.ts";

const urls = (sources: readonly { sourceType: string; url?: string }[]) =>
  sources.flatMap((s) => (s.sourceType === "url" && s.url ? [s.url] : []));

/** The sources as the SDK gives them, their ids (random, made by the SDK) aside. */
const shown = (sources: readonly { id: string }[]) => sources.map((s) => ({ ...s, id: "‹random›" }));

/** How a call is shown: the function, the model as the code names it, and the other arguments. */
const call = (fn: string, model: string, rest: object) =>
  `${fn}(${show({ model: "MODEL", ...rest }).replace('"MODEL"', model)})`;

export async function aiSdkOpenAI(): Promise<Transcript> {
  const where = "AI SDK, @ai-sdk/openai";
  const openai = createOpenAI({ baseURL: `${ctx.served.url}/v1`, apiKey: ctx.served.key });
  const name = `openai(${show(KB)})`;

  const ask = { prompt: QUESTION };
  const r = await generateText({ model: openai(KB), ...ask });
  const first = step("Ask: generateText", `await ${call("generateText", name, ask)}`, {
    text: r.text,
    citationsAt: "result.sources",
    citations: shown(r.sources),
  });
  const responseId = (r.providerMetadata?.openai as { responseId?: string } | undefined)?.responseId;
  first.notes.push(`finishReason: ${r.finishReason}; providerMetadata.openai.responseId: ${responseId}`);
  expectCited(first, where, r.sources.length);
  expectLinked(first, where, r.text, urls(r.sources));

  const follow = { prompt: FOLLOW_UP, providerOptions: { openai: { previousResponseId: responseId! } } };
  const s = streamText({ model: openai(KB), ...follow });
  let text = "";
  for await (const t of s.textStream) text += t;
  const sources = await s.sources;
  const second = step("Follow-up: streamText with previousResponseId", call("streamText", name, follow), {
    text,
    citationsAt: "await result.sources",
    citations: shown(sources),
  });
  second.notes.push(`finishReason: ${await s.finishReason}`);
  expectCited(second, where, sources.length);
  expectLinked(second, where, text, urls(sources));
  await expectContinued(second, where, await newestConversation());

  const unknown = { prompt: QUESTION, maxRetries: 0 };
  const third = await refused(
    step(
      "Refused: a knowledge base that does not exist",
      `await ${call("generateText", 'openai("no-such-kb")', unknown)}`,
    ),
    where,
    () => generateText({ model: openai("no-such-kb"), ...unknown }),
  );
  return {
    title: "AI SDK — @ai-sdk/openai (Responses API)",
    about:
      '`createOpenAI({ baseURL: "http://127.0.0.1:PORT/v1", apiKey })`; `openai("wren")` is its default model, which calls `POST /v1/responses`.',
    steps: [first, second, third],
  };
}

export async function aiSdkCompatible(): Promise<Transcript> {
  const where = "AI SDK, @ai-sdk/openai-compatible";
  const provider = createOpenAICompatible({ name: "parley", baseURL: `${ctx.served.url}/v1`, apiKey: ctx.served.key });
  const model: LanguageModel = provider.chatModel(KB);
  const name = `parley.chatModel(${show(KB)})`;
  const dropped = "this provider does not read Chat Completions annotations; the answer text carries them as links";

  const ask = { prompt: QUESTION };
  const r = await generateText({ model, ...ask });
  const first = step("Ask: generateText", `await ${call("generateText", name, ask)}`, {
    text: r.text,
    citationsAt: "result.sources",
    citations: shown(r.sources),
  });
  first.notes.push(`finishReason: ${r.finishReason}; providerMetadata: ${show(r.providerMetadata ?? null)}`);
  expectCited(first, where, r.sources.length, dropped);

  // The history sent back: the first answer as the SDK returned it.
  const messages: ModelMessage[] = [
    { role: "user", content: QUESTION },
    ...r.response.messages,
    { role: "user", content: FOLLOW_UP },
  ];
  const s = streamText({ model, messages });
  let text = "";
  for await (const t of s.textStream) text += t;
  const sources = await s.sources;
  const second = step("Follow-up: streamText with the history", call("streamText", name, { messages }), {
    text,
    citationsAt: "await result.sources",
    citations: shown(sources),
  });
  expectCited(second, where, sources.length, dropped);
  await expectContinued(second, where, await newestConversation());

  const unknown = { prompt: QUESTION, maxRetries: 0 };
  const third = await refused(
    step(
      "Refused: a knowledge base that does not exist",
      `await ${call("generateText", 'parley.chatModel("no-such-kb")', unknown)}`,
    ),
    where,
    () => generateText({ model: provider.chatModel("no-such-kb"), ...unknown }),
  );
  return {
    title: "AI SDK — @ai-sdk/openai-compatible (Chat Completions)",
    about:
      '`createOpenAICompatible({ name: "parley", baseURL: "http://127.0.0.1:PORT/v1", apiKey })`, `parley.chatModel("wren")`.',
    steps: [first, second, third],
  };
}

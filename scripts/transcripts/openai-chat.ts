/** The official `openai` SDK over Chat Completions: create, a streamed follow-up with the history, a refusal. */
import OpenAI from "openai";
import {
  ctx,
  expectAnchored,
  expectCited,
  expectContinued,
  FOLLOW_UP,
  QUESTION,
  refused,
  show,
  step,
  type Transcript,
} from "./record.ts";
import { KB } from "./server.ts";

type Annotation = OpenAI.ChatCompletionMessage.Annotation;

const spans = (annotations: Annotation[] = []) =>
  annotations.map(({ url_citation: c }) => ({ start: c.start_index, end: c.end_index, url: c.url }));

export async function openaiChat(): Promise<Transcript> {
  const where = "openai SDK, Chat Completions";
  const client = new OpenAI({ baseURL: `${ctx.served.url}/v1`, apiKey: ctx.served.key, maxRetries: 0 });

  const ask = { model: KB, messages: [{ role: "user" as const, content: QUESTION }] };
  const { data, response } = await client.chat.completions.create(ask).withResponse();
  const message = data.choices[0]!.message;
  const first = step("Ask", `await client.chat.completions.create(${show(ask)}).withResponse()`, {
    text: message.content ?? "",
    citationsAt: "choices[0].message.annotations",
    citations: message.annotations,
  });
  first.notes.push(
    `finish_reason: ${data.choices[0]!.finish_reason}; X-Parley-Conversation-Id: ${response.headers.get("x-parley-conversation-id")}`,
  );
  expectCited(first, where, message.annotations?.length ?? 0);
  expectAnchored(first, where, message.content ?? "", spans(message.annotations));

  // The follow-up sends the history back (as chat UIs do), streamed.
  const follow = {
    model: KB,
    stream: true as const,
    messages: [
      ...ask.messages,
      { role: "assistant" as const, content: message.content },
      { role: "user" as const, content: FOLLOW_UP },
    ],
  };
  const streamed = await client.chat.completions.create(follow).withResponse();
  let text = "";
  const annotations: Annotation[] = [];
  let finish: string | null | undefined;
  for await (const chunk of streamed.data) {
    const delta = chunk.choices[0]?.delta as
      | (OpenAI.ChatCompletionChunk.Choice.Delta & { annotations?: Annotation[] })
      | undefined;
    text += delta?.content ?? "";
    annotations.push(...(delta?.annotations ?? []));
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  const second = step(
    "Follow-up: the history sent back, streamed",
    `await client.chat.completions.create(${show(follow)}).withResponse()`,
    {
      text,
      citationsAt: "choices[0].delta.annotations of the chunks (concatenated)",
      citations: annotations,
    },
  );
  second.notes.push(`finish_reason: ${finish}`);
  expectCited(second, where, annotations.length);
  expectAnchored(second, where, text, spans(annotations));
  await expectContinued(second, where, streamed.response.headers.get("x-parley-conversation-id") ?? undefined);

  const tools = {
    ...ask,
    tools: [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }],
  };
  const third = await refused(
    step("Refused: a tool of the client's own", `await client.chat.completions.create(${show(tools)})`),
    where,
    () => client.chat.completions.create(tools),
  );
  return {
    title: "openai SDK — Chat Completions",
    about:
      '`new OpenAI({ baseURL: "http://127.0.0.1:PORT/v1", apiKey, maxRetries: 0 })`, `client.chat.completions.create`.',
    steps: [first, second, third],
  };
}

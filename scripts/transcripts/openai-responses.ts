/**
 * The official `openai` SDK over the Responses API: responses.create (not streamed), retrieve, a
 * streamed follow-up with previous_response_id, and a refusal.
 */
import OpenAI from "openai";
import {
  ctx,
  expectAnchored,
  expectCited,
  expectContinued,
  FOLLOW_UP,
  findings,
  newestConversation,
  QUESTION,
  refused,
  show,
  step,
  type Transcript,
} from "./record.ts";
import { KB } from "./server.ts";

/** The first output_text part of a response, where the SDK keeps its url_citation annotations. */
const outputText = (r: OpenAI.Responses.Response) =>
  (r.output[0] as OpenAI.Responses.ResponseOutputMessage | undefined)?.content[0] as
    | OpenAI.Responses.ResponseOutputText
    | undefined;

type Annotation = OpenAI.Responses.ResponseOutputText["annotations"][number];

/** The url_citation annotations' spans (the others have none). */
const spans = (annotations: Annotation[] = []) =>
  annotations.flatMap((a) =>
    a.type === "url_citation" ? [{ start: a.start_index, end: a.end_index, url: a.url }] : [],
  );

export async function openaiResponses(): Promise<Transcript> {
  const where = "openai SDK, Responses";
  const client = new OpenAI({ baseURL: `${ctx.served.url}/v1`, apiKey: ctx.served.key, maxRetries: 0 });

  const ask = { model: KB, input: QUESTION };
  const r = await client.responses.create(ask);
  const first = step("Ask: responses.create", `await client.responses.create(${show(ask)})`, {
    text: r.output_text,
    citationsAt: "output[0].content[0].annotations",
    citations: outputText(r)?.annotations,
  });
  first.notes.push(`id: ${r.id}; status: ${r.status}`);
  expectCited(first, where, outputText(r)?.annotations.length ?? 0);
  expectAnchored(first, where, r.output_text, spans(outputText(r)?.annotations));

  const again = await client.responses.retrieve(r.id);
  const retrieved = step("Retrieve: responses.retrieve", `await client.responses.retrieve(${show(r.id)})`, {
    citationsAt: "output[0].content[0].annotations",
    citations: outputText(again)?.annotations,
  });
  const same = again.output_text === r.output_text && JSON.stringify(again.output) === JSON.stringify(r.output);
  retrieved.notes.push(`status: ${again.status}; output ${same ? "identical to" : "DIFFERENT from"} the create's`);
  if (!same) retrieved.notes.push(`retrieved text: ${again.output_text}`);

  const follow = { model: KB, input: FOLLOW_UP, previous_response_id: r.id, stream: true as const };
  const stream = await client.responses.create(follow);
  let text = "";
  const added: unknown[] = [];
  const types = new Set<string>();
  let done: OpenAI.Responses.Response | undefined;
  for await (const e of stream) {
    types.add(e.type);
    if (e.type === "response.output_text.delta") text += e.delta;
    if (e.type === "response.output_text.annotation.added") added.push(e.annotation);
    if (e.type === "response.completed") done = e.response;
  }
  const second = step("Follow-up: previous_response_id, streamed", `await client.responses.create(${show(follow)})`, {
    text,
    citationsAt: "response.output_text.annotation.added events' annotation",
    citations: added,
  });
  second.notes.push(`events: ${[...types].join(", ")}`);
  second.notes.push(
    `response.completed: id ${done?.id}, previous_response_id ${done?.previous_response_id}, ${outputText(done!)?.annotations.length ?? 0} annotations in output[0].content[0]`,
  );
  // The completed response's part holds the same text and annotations as the events before it.
  const final = done && outputText(done);
  if (final?.text !== text || JSON.stringify(final?.annotations) !== JSON.stringify(added))
    findings.push(
      `${where}: the response.completed event's output_text part differs from the deltas and annotation events`,
    );
  expectCited(second, where, added.length);
  expectAnchored(second, where, text, spans(added as never));
  await expectContinued(second, where, await newestConversation());

  const tools = { model: KB, input: QUESTION, tools: [{ type: "web_search" as const }] };
  const third = await refused(step("Refused: tools", `await client.responses.create(${show(tools)})`), where, () =>
    client.responses.create(tools),
  );
  return {
    title: "openai SDK — Responses",
    about: "The same client, `client.responses.create` / `retrieve`: a response is a stored reply (`resp_…`).",
    steps: [first, retrieved, second, third],
  };
}

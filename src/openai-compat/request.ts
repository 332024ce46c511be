/**
 * The Chat Completions request as Parley reads it: the last `user` message is the question,
 * earlier `user`/`assistant` turns the history, `system`/`developer` messages instructions for
 * a model backend; sampling settings go to the model backend. Unknown fields are ignored (as
 * OpenAI does); what Parley cannot honour (`n > 1`, `tools`, `response_format` other than text,
 * non-text content) is refused with 400 naming the `param`.
 */
import { t } from "elysia";
import type { ChatTurn, GenerationSettings } from "../agent/index.ts";
import { ApiError } from "../http/errors.ts";
import { citationsField } from "./citations.ts";

/**
 * The most `messages` one request may carry. A client's own history is stored with the new
 * conversation, in the statement that starts the reply: bounded so that one request's write
 * stays small (the agent reads only the most recent turns that fit its budget anyway).
 */
export const MAX_COMPLETION_MESSAGES = 2_048;

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T, error: string, description?: string) =>
  t.Optional(t.Union([s, t.Null()], { error, ...(description ? { description } : {}) }));

const Part = t.Object({ type: t.String(), text: t.Optional(t.String()) });
const Message = t.Object({
  role: t.String({ description: "`system`, `developer`, `user` or `assistant`.", examples: ["user"] }),
  content: t.Optional(t.Union([t.String(), t.Array(Part), t.Null()], { examples: ["How do rate limits work?"] })),
  name: t.Optional(t.String()),
});

export const completionBody = t.Object({
  model: t.String({
    minLength: 1,
    examples: ["default"],
    description: "A knowledge base the key may use, by name or id; `default` is the key's default.",
    error: "Invalid field 'model': it must be a knowledge base name or id (or `default`).",
  }),
  messages: t.Array(Message, {
    minItems: 1,
    error: "Invalid field 'messages': it must be a non-empty array of {role, content} objects.",
  }),
  stream: nullable(t.Boolean(), "Invalid field 'stream': it must be true or false."),
  stream_options: nullable(
    t.Object({ include_usage: t.Optional(t.Boolean()) }),
    "Invalid field 'stream_options': it must be an object such as {\"include_usage\": true}.",
  ),
  max_completion_tokens: nullable(
    t.Integer({ minimum: 1 }),
    "Invalid field 'max_completion_tokens': it must be a positive integer.",
  ),
  max_tokens: nullable(t.Integer({ minimum: 1 }), "Invalid field 'max_tokens': it must be a positive integer."),
  temperature: nullable(
    t.Number({ minimum: 0, maximum: 2 }),
    "Invalid field 'temperature': it must be a number from 0 to 2.",
  ),
  top_p: nullable(t.Number({ minimum: 0, maximum: 1 }), "Invalid field 'top_p': it must be a number from 0 to 1."),
  stop: nullable(
    t.Union([t.String(), t.Array(t.String(), { maxItems: 4 })]),
    "Invalid field 'stop': it must be a string or an array of up to 4 strings.",
  ),
  user: t.Optional(t.String({ error: "Invalid field 'user': it must be a string." })),
  n: nullable(t.Integer({ minimum: 1 }), "Invalid field 'n': it must be a positive integer."),
  tools: nullable(
    t.Array(t.Unknown(), { description: "Refused unless empty: Parley's agent calls no tools.", examples: [[]] }),
    "Invalid field 'tools': it must be an array.",
  ),
  tool_choice: t.Optional(t.Unknown({ description: "Ignored (no tools).", examples: ["none"] })),
  response_format: nullable(
    t.Object({ type: t.String() }, { description: 'Only {"type": "text"}.', examples: [{ type: "text" }] }),
    'Invalid field \'response_format\': it must be an object such as {"type": "text"}.',
  ),
  parley_citations: citationsField,
});

type Body = typeof completionBody.static;

/** What a completion request asks of the chat service. */
export interface CompletionRequest {
  question: string;
  /** Where the question is, for a refusal of it (chat/ checks it where every door starts a reply). */
  questionParam: string;
  history: ChatTurn[];
  settings: GenerationSettings;
}

const refuse = (param: string, message: string) => new ApiError("invalid_request", message, { param });

/** The question, history and settings of a valid body; 400 naming the param otherwise. */
export function readCompletion(body: Body, maxMessageChars: number): CompletionRequest {
  if (body.messages.length > MAX_COMPLETION_MESSAGES)
    throw refuse(
      "messages",
      `At most ${MAX_COMPLETION_MESSAGES} messages are accepted (got ${body.messages.length}); send the most recent ones, or continue the stored conversation with X-Parley-Conversation-Id.`,
    );
  if (body.n != null && body.n > 1) throw refuse("n", "Only n = 1 is supported: Parley gives one reply.");
  if (body.tools?.length)
    throw refuse("tools", "Tools are not supported: Parley's agent answers from its knowledge base.");
  if (body.response_format != null && body.response_format.type !== "text")
    throw refuse("response_format", 'Only response_format {"type": "text"} is supported.');

  const instructions: string[] = [];
  const turns: (ChatTurn & { at: number })[] = [];
  for (const [i, m] of body.messages.entries()) {
    const text = textOf(m.content, `messages[${i}].content`);
    if (m.role === "system" || m.role === "developer") {
      if (text.trim()) instructions.push(text);
    } else if (m.role === "user" || m.role === "assistant") {
      turns.push({ role: m.role, content: text, at: i });
    } else {
      throw refuse(
        `messages[${i}].role`,
        `Messages with role '${m.role.slice(0, 40)}' are not supported: use system, developer, user or assistant.`,
      );
    }
  }
  const last = turns.at(-1);
  if (!last || last.role !== "user")
    throw refuse("messages", "The last user or assistant message must be from the user: it is the question.");
  const questionParam = `messages[${last.at}].content`;
  if (last.content.length > maxMessageChars)
    throw refuse(questionParam, `Invalid question: it must be at most ${maxMessageChars} characters.`);
  const history = turns
    .slice(0, -1)
    .filter((t) => t.content.trim() && !t.content.includes("\0"))
    .map(({ role, content }) => ({ role, content: content.toWellFormed() }));
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const stop = body.stop == null ? undefined : Array.isArray(body.stop) ? body.stop : [body.stop];
  const settings: GenerationSettings = {
    ...(instructions.length ? { instructions: instructions.join("\n\n") } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(stop?.length ? { stopSequences: stop } : {}),
  };
  return { question: last.content, questionParam, history, settings };
}

/** A message's text: a string, or its text parts joined; other parts (images, audio) are refused. */
function textOf(content: Body["messages"][number]["content"], param: string): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((p) => {
      if (p.type !== "text" || typeof p.text !== "string")
        throw refuse(param, `Content parts of type '${String(p.type).slice(0, 40)}' are not supported: send text.`);
      return p.text;
    })
    .join("\n");
}

/**
 * The Responses request as Parley reads it: `input` (a string, or messages with text content)
 * ends with the question, its earlier user/assistant messages are the history, `instructions`
 * and system/developer messages instructions for a model backend. What Parley cannot honour
 * (tools, images and files, background runs, structured output, reasoning…) is refused with 400
 * naming the `param`: a client must not believe a feature applied that did not. An
 * `item_reference` to an earlier answer (`msg_…`, what the AI SDK sends for the assistant turns
 * of a stored conversation) stands for that answer's stored text.
 */
import { t } from "elysia";
import type { ChatTurn, GenerationSettings } from "../agent/index.ts";
import { ApiError, clip } from "../http/errors.ts";
import { citationsField } from "./citations.ts";
import { MAX_COMPLETION_MESSAGES } from "./request.ts";

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T, error: string, examples?: unknown[]) =>
  t.Optional(t.Union([s, t.Null()], { error, ...(examples ? { examples } : {}) }));

const Part = t.Object({ type: t.String(), text: t.Optional(t.String()) });
const Item = t.Object({
  type: t.Optional(t.String({ description: "`message` (the default), or `item_reference` to an earlier answer." })),
  id: t.Optional(t.String({ description: "An `item_reference`'s `msg_…` id: an earlier answer's." })),
  role: t.Optional(t.String({ description: "`user`, `assistant`, `system` or `developer`.", examples: ["user"] })),
  content: t.Optional(t.Union([t.String(), t.Array(Part)])),
});

export const responseBody = t.Object({
  model: t.String({
    minLength: 1,
    examples: ["default"],
    description: "A knowledge base the key may use, by name or id; `default` is the key's default.",
    error: "Invalid field 'model': it must be a knowledge base name or id (or `default`).",
  }),
  input: t.Union([t.String({ examples: ["How do rate limits work?"] }), t.Array(Item, { minItems: 1 })], {
    description: "The question, or messages ending with it (text content only).",
    error: "Invalid field 'input': it must be a string or a non-empty array of messages.",
  }),
  instructions: nullable(t.String(), "Invalid field 'instructions': it must be a string."),
  stream: nullable(t.Boolean(), "Invalid field 'stream': it must be true or false."),
  max_output_tokens: nullable(t.Integer({ minimum: 1 }), "Invalid field 'max_output_tokens': a positive integer."),
  temperature: nullable(t.Number({ minimum: 0, maximum: 2 }), "Invalid field 'temperature': a number from 0 to 2."),
  top_p: nullable(t.Number({ minimum: 0, maximum: 1 }), "Invalid field 'top_p': a number from 0 to 1."),
  previous_response_id: nullable(t.String(), "Invalid field 'previous_response_id': it must be a resp_… id.", [null]),
  store: nullable(t.Boolean(), "Invalid field 'store': it must be true or false."),
  parley_citations: citationsField,
  // Declared so they reach the check below (undeclared fields are dropped before the handler).
  tools: t.Optional(t.Unknown({ description: "Refused unless empty: Parley's agent calls no tools.", examples: [[]] })),
  tool_choice: t.Optional(
    t.Unknown({ description: "Only `none` or `auto` (there are no tools).", examples: ["none"] }),
  ),
  background: t.Optional(t.Unknown({ description: "Refused when true.", examples: [false] })),
  conversation: t.Optional(t.Unknown({ description: "Refused: use previous_response_id.", examples: [null] })),
  prompt: t.Optional(t.Unknown({ description: "Refused: stored prompts are not supported.", examples: [null] })),
  reasoning: t.Optional(t.Unknown({ description: "Refused when it sets an effort.", examples: [null] })),
  text: t.Optional(
    t.Unknown({ description: 'Only {"format": {"type": "text"}}.', examples: [{ format: { type: "text" } }] }),
  ),
});

type Body = typeof responseBody.static;

/**
 * Fields Parley refuses when they ask for something: the value that asks nothing passes (an
 * empty `tools`, `tool_choice: "none"`…), as clients send defaults.
 */
const UNSUPPORTED: [string, (v: unknown) => boolean, string][] = [
  [
    "tools",
    (v) => Array.isArray(v) && v.length > 0,
    "Tools are not supported: Parley answers from its knowledge base.",
  ],
  [
    "tool_choice",
    (v) => v !== "none" && v !== "auto",
    "Tools are not supported: tool_choice may only be none or auto.",
  ],
  ["background", (v) => v === true, "Background responses are not supported: stream, or wait for the answer."],
  ["conversation", (v) => v != null, "Use previous_response_id to continue a conversation."],
  ["prompt", (v) => v != null, "Stored prompts are not supported: send instructions and input."],
  [
    "reasoning",
    (v) => v != null && (v as { effort?: unknown }).effort != null,
    "Reasoning settings are not supported.",
  ],
  [
    "text.format",
    (v) =>
      v != null &&
      (v as { format?: { type?: unknown } }).format?.type !== undefined &&
      (v as { format: { type: unknown } }).format.type !== "text",
    'Structured output is not supported: only text.format {"type": "text"}.',
  ],
];

const refuse = (param: string, message: string) => new ApiError("invalid_request", message, { param });

/** What a Responses request asks of the chat service. */
export interface ResponseRequest {
  question: string;
  questionParam: string;
  history: ChatTurn[];
  settings: GenerationSettings;
}

/** An earlier answer's stored text, by its `msg_…` id, if the key owns it. */
export type ReferenceReader = (id: string) => Promise<string | null>;

/** The question, history and settings of a valid body; 400 (or 404 for a reference) naming the param otherwise. */
export async function readResponse(
  body: Body,
  maxMessageChars: number,
  reference: ReferenceReader,
): Promise<ResponseRequest> {
  const raw = body as Record<string, unknown>;
  for (const [param, asks, message] of UNSUPPORTED) {
    const value = param === "text.format" ? raw.text : raw[param];
    if (value !== undefined && asks(value)) throw refuse(param, message);
  }
  const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  if (items.length > MAX_COMPLETION_MESSAGES)
    throw refuse("input", `At most ${MAX_COMPLETION_MESSAGES} input items are accepted (got ${items.length}).`);
  const instructions = body.instructions?.trim() ? [body.instructions] : [];
  const turns: (ChatTurn & { at: number })[] = [];
  for (const [i, item] of items.entries()) {
    const at = typeof body.input === "string" ? "input" : `input[${i}]`;
    const type = "type" in item ? item.type : undefined;
    if (type === "item_reference") {
      const content = item.id ? await reference(item.id) : null;
      if (content === null)
        throw new ApiError("not_found", `No earlier answer '${clip(item.id ?? "")}' for this key.`, {
          param: `${at}.id`,
        });
      turns.push({ role: "assistant", content, at: i });
      continue;
    }
    if (type !== undefined && type !== "message")
      throw refuse(`${at}.type`, `Input items of type '${type.slice(0, 40)}' are not supported: send messages.`);
    const text = textOf(item.content, typeof body.input === "string" ? "input" : `${at}.content`);
    if (item.role === "system" || item.role === "developer") {
      if (text.trim()) instructions.push(text);
    } else if (item.role === "user" || item.role === "assistant") {
      turns.push({ role: item.role, content: text, at: i });
    } else {
      throw refuse(
        `${at}.role`,
        `Messages with role '${String(item.role).slice(0, 40)}' are not supported: use user, assistant, system or developer.`,
      );
    }
  }
  const last = turns.at(-1);
  if (!last || last.role !== "user")
    throw refuse("input", "The last user or assistant message must be from the user: it is the question.");
  const questionParam = typeof body.input === "string" ? "input" : `input[${last.at}].content`;
  if (last.content.length > maxMessageChars)
    throw refuse(questionParam, `Invalid question: it must be at most ${maxMessageChars} characters.`);
  const history = turns
    .slice(0, -1)
    .filter((t) => t.content.trim() && !t.content.includes("\0"))
    .map(({ role, content }) => ({ role, content: content.toWellFormed() }));
  const settings: GenerationSettings = {
    ...(instructions.length ? { instructions: instructions.join("\n\n") } : {}),
    ...(body.max_output_tokens != null ? { maxOutputTokens: body.max_output_tokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
  };
  return { question: last.content, questionParam, history, settings };
}

/** A message's text: a string, or its text parts joined; images, files and audio are refused. */
function textOf(content: string | { type: string; text?: string }[] | undefined, param: string): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((p, j) => {
      if ((p.type !== "input_text" && p.type !== "output_text" && p.type !== "text") || typeof p.text !== "string")
        throw refuse(
          `${param}[${j}]`,
          `Content parts of type '${String(p.type).slice(0, 40)}' are not supported: send input_text.`,
        );
      return p.text;
    })
    .join("\n");
}

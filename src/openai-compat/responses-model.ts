/** Schemas and route documents of the Responses routes (validation and OpenAPI), in OpenAI's wire form. */
import { t } from "elysia";
import { routeDoc } from "../http/route-doc.ts";
import { OpenAiErrorBody } from "./model.ts";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);

const UrlCitation = t.Object({
  type: t.Literal("url_citation"),
  start_index: t.Integer({ description: "Where the citation (its link, or its marker) starts in `text` (UTF-16)." }),
  end_index: t.Integer(),
  url: t.String(),
  title: t.String(),
});

export const OutputText = t.Object({
  type: t.Literal("output_text"),
  text: t.String(),
  annotations: t.Array(UrlCitation),
  logprobs: t.Array(t.Unknown()),
});

const OutputMessage = t.Object({
  type: t.Literal("message"),
  id: t.String({ description: "The stored reply's msg_… id." }),
  status: t.String({ description: "`in_progress`, `completed` or `incomplete`." }),
  role: t.Literal("assistant"),
  content: t.Array(OutputText),
});

const Usage = t.Object({
  input_tokens: t.Integer(),
  input_tokens_details: t.Object({ cached_tokens: t.Integer() }),
  output_tokens: t.Integer(),
  output_tokens_details: t.Object({ reasoning_tokens: t.Integer() }),
  total_tokens: t.Integer(),
});

export const ResponseObject = t.Object({
  id: t.String({ description: "`resp_` followed by the stored reply's id suffix (its `msg_…` id)." }),
  object: t.Literal("response"),
  created_at: t.Integer(),
  status: t.String({
    description: "`completed`, `incomplete` (an output cap), `cancelled` (stopped), `failed`, `in_progress`.",
  }),
  background: t.Boolean(),
  error: Nullable(t.Object({ code: t.String(), message: t.String() })),
  incomplete_details: Nullable(t.Object({ reason: t.String() })),
  instructions: Nullable(t.String()),
  max_output_tokens: Nullable(t.Integer()),
  temperature: Nullable(t.Number()),
  top_p: Nullable(t.Number()),
  previous_response_id: Nullable(t.String()),
  store: t.Boolean(),
  model: t.String({ description: "The knowledge base's name." }),
  output: t.Array(OutputMessage),
  parallel_tool_calls: t.Boolean(),
  reasoning: t.Object({ effort: t.Null(), summary: t.Null() }),
  text: t.Object({ format: t.Object({ type: t.Literal("text") }) }),
  tool_choice: t.Literal("none"),
  tools: t.Array(t.Unknown()),
  truncation: t.Literal("disabled"),
  usage: Nullable(Usage),
  user: t.Null(),
  metadata: t.Object({}),
});

export const DeletedResponse = t.Object({
  id: t.String(),
  object: t.Literal("response"),
  deleted: t.Literal(true),
});

export const ResponseIdParams = t.Object({
  id: t.String({ description: "A `resp_…` id.", examples: ["resp_01jx0000000000000000000000"] }),
});

const errors = { 400: OpenAiErrorBody, 401: OpenAiErrorBody, 404: OpenAiErrorBody, 429: OpenAiErrorBody };

const IDEMPOTENCY = {
  name: "Idempotency-Key",
  in: "header" as const,
  description: "A retry with the same key and body gets the same response (the same id), nothing new is stored.",
  schema: { type: "string", examples: ["8d41c0b2-response"] },
};

export const responseRoutesDoc = {
  create: {
    response: { 200: ResponseObject, ...errors, 409: OpenAiErrorBody, 413: OpenAiErrorBody, 415: OpenAiErrorBody },
    detail: routeDoc(
      "Create a response (OpenAI Responses API)",
      "OpenAI's Responses API over Parley: `model` is a knowledge base, `input` the question (or messages ending with it). One `message` output item with `output_text` and `url_citation` annotations. With `stream: true`, the Responses events (`response.created` … `response.completed`), each with `sequence_number`. `previous_response_id` continues the conversation that response belongs to. Tools, images, files, background runs and structured output are refused (400 naming the `param`).",
      {
        operationId: "createResponse",
        success: "Response",
        body: "ResponseRequest",
        events: "ResponseStreamEvent",
        parameters: [IDEMPOTENCY],
      },
    ),
  },
  retrieve: {
    response: { 200: ResponseObject, ...errors },
    detail: routeDoc("Retrieve a response", "A stored response of this key, by its `resp_…` id; 404 otherwise.", {
      operationId: "retrieveResponse",
      success: "Response",
    }),
  },
  remove: {
    response: { 200: DeletedResponse, ...errors, 409: OpenAiErrorBody },
    detail: routeDoc(
      "Delete a response",
      "Deletes a stored response and the question it answered (its conversation too, once empty). 409 while it is still being generated.",
      { operationId: "deleteResponse", success: "DeletedResponse" },
    ),
  },
};

/** One event of a streamed response (`data:` of each `event: <type>` frame). */
export const ResponseStreamEvent = t.Object(
  { type: t.String({ examples: ["response.output_text.delta"] }), sequence_number: t.Integer() },
  { additionalProperties: true },
);

/** Response schemas of the OpenAI-compatible routes (validation and OpenAPI), in OpenAI's wire form. */
import { t } from "elysia";

export const OpenAiErrorBody = t.Object(
  {
    error: t.Object({
      message: t.String(),
      type: t.String(),
      param: t.Union([t.String(), t.Null()]),
      code: t.String(),
    }),
    request_id: t.String(),
  },
  { description: "OpenAI's error shape, with Parley's code and request id." },
);

const Usage = t.Object({ prompt_tokens: t.Integer(), completion_tokens: t.Integer(), total_tokens: t.Integer() });

const Annotation = t.Object({
  type: t.Literal("url_citation"),
  url_citation: t.Object({
    url: t.String(),
    title: t.String(),
    start_index: t.Integer({
      description:
        "Where the citation (its link `[k](url)`, or the marker `[k]`) starts in `content` (UTF-16 code units).",
    }),
    end_index: t.Integer(),
  }),
});

export const CompletionResponse = t.Object({
  id: t.String({ description: "`chatcmpl-` followed by the reply's msg_… id" }),
  object: t.Literal("chat.completion"),
  created: t.Integer(),
  model: t.String(),
  choices: t.Array(
    t.Object({
      index: t.Integer(),
      message: t.Object({
        role: t.Literal("assistant"),
        content: t.String(),
        refusal: t.Null(),
        annotations: t.Array(Annotation),
      }),
      logprobs: t.Null(),
      finish_reason: t.Union([t.Literal("stop"), t.Literal("length")]),
    }),
  ),
  usage: Usage,
});

export const ModelObject = t.Object({
  id: t.String(),
  object: t.Literal("model"),
  created: t.Integer(),
  owned_by: t.Literal("parley"),
});

export const ModelList = t.Object({ object: t.Literal("list"), data: t.Array(ModelObject) });

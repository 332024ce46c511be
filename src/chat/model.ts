/** Wire schemas of POST /chat, including the SSE events (documented for OpenAPI). */
import { type Static, t } from "elysia";
import { CERTAINTIES } from "../contract/analytics.ts";
import type { StreamEvent as WireEvent } from "../contract/events.ts";
import { REPLY_STATUSES } from "../contract/events.ts";
import type { ChatReply as WireChatReply } from "../contract/resources.ts";
import { Usage } from "../conversations/index.ts";
import { ErrorPayload } from "../http/model.ts";
import { literals, type Same } from "../http/schema-contract.ts";

export const chatBody = (maxMessageChars: number) =>
  t.Object({
    message: t.String({
      minLength: 1,
      maxLength: maxMessageChars,
      description: `The user's message (1–${maxMessageChars} characters).`,
      examples: ["How do I create an API key?"],
      error: `Invalid field 'message': it must be a non-empty string of at most ${maxMessageChars} characters.`,
    }),
    conversation_id: t.Optional(
      t.Union([t.String(), t.Null()], {
        description: "Continue this conversation; omit (or null) to start a new one.",
        examples: [null],
        error: "Invalid field 'conversation_id': it must be a conversation id string.",
      }),
    ),
    knowledge_base_id: t.Optional(
      t.String({
        description:
          "A new conversation answers from this knowledge base (kb_… id or name; one the key may use). Default: the key's only knowledge base, else the one named `default`. A conversation keeps its knowledge base.",
        error: "Invalid field 'knowledge_base_id': it must be a knowledge base id string.",
      }),
    ),
    stream: t.Optional(
      t.Boolean({
        default: false,
        description: "true: Server-Sent Events; false: one JSON reply.",
        error: "Invalid field 'stream': it must be true or false.",
      }),
    ),
  });

/** The reply as JSON (`stream: false`). */
const Certainty = t.Union([literals(CERTAINTIES), t.Null()], {
  description:
    "How sure the answer is: `answered` (sources found and cited), `uncertain` (found, but the retrieval margin was thin, or a model cited none), `no_sources` (nothing in the knowledge base). Null only for a reply stored before it was recorded.",
});

export const ChatReply = t.Object({
  id: t.String({ description: "msg_… identifier of the assistant message" }),
  conversation_id: t.String({ description: "conv_… identifier" }),
  content: t.String(),
  sources: t.Array(t.String({ description: "URL" }), {
    description: "The documents the reply cites, in order of first citation: `[k]` in `content` is `sources[k-1]`.",
  }),
  status: literals(REPLY_STATUSES, {
    description: "`stopped`: POST …/stop ended the reply early; `content` is what was generated until then.",
  }),
  created_at: t.String({ format: "date-time" }),
  usage: Usage,
  certainty: Certainty,
});

/** One `data:` line of the stream. */
export const StreamEvent = t.Union(
  [
    t.Object({
      type: t.Literal("start"),
      conversation_id: t.String(),
      message_id: t.String({ description: "The reply's msg_… id (stored from this moment, status in_progress)" }),
      resume_token: t.Optional(
        t.String({
          description:
            "Accepted as `?token=` on this reply's events route instead of the Authorization header, for 1 h from the reply's start (an EventSource cannot send headers); it counts as a request of the reply's key",
        }),
      ),
    }),
    t.Object({ type: t.Literal("token"), content: t.String() }),
    t.Object(
      { type: t.Literal("sources"), sources: t.Array(t.String({ description: "URL" })) },
      {
        description:
          "The reply's sources so far (`[k]` is `sources[k-1]`): sent again each time the list grows, before the first token citing what it adds; the last one is the reply's sources",
      },
    ),
    t.Object({
      type: t.Literal("end"),
      message_id: t.String(),
      status: literals(REPLY_STATUSES),
      usage: Usage,
      certainty: t.Optional(literals(CERTAINTIES)),
    }),
    t.Object({ type: t.Literal("error"), error: t.Omit(ErrorPayload, ["param"]) }),
  ],
  { description: "Each SSE event is `id: <sequence number>`, `data: <one of these as JSON>`, then a blank line." },
);

true satisfies Same<Static<typeof ChatReply>, WireChatReply>;
true satisfies Same<Static<typeof StreamEvent>, WireEvent>;

/** Wire schemas of the conversation routes (validation and OpenAPI from one source). */
import { type Static, t } from "elysia";
import { MESSAGE_STATUSES, type Usage as WireUsage } from "../contract/events.ts";
import { RATINGS } from "../contract/operate.ts";
import * as Wire from "../contract/resources.ts";
import type { ConversationRow, MessageRow } from "../db/schema.ts";
import { literals, type Same } from "../http/schema-contract.ts";

/** Token counts of a reply as the model provider reported them; null when it reported none. */
export const Usage = t.Union(
  [
    t.Object({
      input_tokens: t.Union([t.Integer(), t.Null()]),
      output_tokens: t.Union([t.Integer(), t.Null()]),
    }),
    t.Null(),
  ],
  {
    description:
      "Tokens the model provider reported for this reply; null when it reported none (e.g. the retrieval agent).",
  },
);

/** The wire's `usage` of a stored message. */
export const usageOf = (m: { inputTokens: number | null; outputTokens: number | null }) =>
  m.inputTokens === null && m.outputTokens === null
    ? null
    : { input_tokens: m.inputTokens, output_tokens: m.outputTokens };

export const ConversationSummary = t.Object({
  id: t.String({ description: "conv_… identifier", examples: ["conv_01jd5x8r7mf6sb1b2k3n4p5q6r"] }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  title: t.String({ description: "First line of the first message, shortened." }),
  knowledge_base_id: t.Union([t.String(), t.Null()], {
    description: "The knowledge base its replies search and cite (kb_…); null once it is deleted.",
  }),
});

export const COMMENT_MAX = 2_000;

export const Feedback = t.Object(
  {
    rating: literals(RATINGS),
    comment: t.Union([t.String({ maxLength: COMMENT_MAX }), t.Null()]),
    updated_at: t.String({ format: "date-time" }),
  },
  { description: "A rating of an assistant reply; one per reply, a new one replaces it." },
);

/** A stored rating, as pageMessages reads it beside its message. */
export interface FeedbackRow {
  rating: "up" | "down";
  comment: string | null;
  updatedAt: Date;
}

export const toFeedback = (f: FeedbackRow | null | undefined) =>
  f ? { rating: f.rating, comment: f.comment, updated_at: f.updatedAt.toISOString() } : null;

export const Message = t.Object({
  id: t.String({ description: "msg_… identifier" }),
  role: literals(Wire.MESSAGE_ROLES),
  content: t.String(),
  // No `format: "uri"`: responses are validated, and a custom agent's odd source must not break reads.
  sources: t.Array(t.String(), { description: "URLs the reply drew on (empty for user messages)." }),
  status: literals(MESSAGE_STATUSES, {
    description:
      "An assistant reply is `in_progress` while generated (its content grows), then `completed`, `failed` or `stopped`.",
  }),
  created_at: t.String({ format: "date-time" }),
  usage: Usage,
  feedback: t.Union([Feedback, t.Null()]),
});

export const Pagination = t.Object({
  has_more: t.Boolean(),
  next_cursor: t.Union([t.String(), t.Null()], {
    description: "Pass as `cursor` for the next page; null on the last page.",
  }),
});

export const MessagePagination = t.Object(
  {
    has_more: t.Boolean({ description: "Whether older messages exist." }),
    next_cursor: t.Union([t.String(), t.Null()], {
      description:
        "Pass as `cursor` to GET /v1/conversations/{id}/messages for the older messages; null when there are none.",
    }),
  },
  { description: "Paging of the conversation's messages: only the most recent ones are included." },
);

export const ConversationDetail = t.Composite([
  ConversationSummary,
  t.Object({
    messages: t.Array(Message, { description: "The most recent messages (up to 100), oldest first." }),
    pagination: MessagePagination,
  }),
]);

export const ConversationList = t.Object({ data: t.Array(ConversationSummary), pagination: Pagination });

export const MessageList = t.Object({
  data: t.Array(Message, {
    description: "One page of messages, oldest first; each page is older than the one before.",
  }),
  pagination: MessagePagination,
});

export const LIMIT_MESSAGE = "Invalid query parameter 'limit': it must be an integer from 1 to 100.";

export const ListQuery = t.Object({
  limit: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: 100,
      default: 20,
      description: "Items per page, 1–100.",
      error: LIMIT_MESSAGE,
    }),
  ),
  cursor: t.Optional(
    t.String({
      description: "pagination.next_cursor of the previous page.",
      error: "Invalid query parameter 'cursor': pass pagination.next_cursor from a previous page as it is.",
    }),
  ),
});

export const MessagesQuery = t.Object({
  limit: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: 100,
      default: 100,
      description: "Messages per page, 1–100.",
      error: LIMIT_MESSAGE,
    }),
  ),
  cursor: ListQuery.properties.cursor,
});

export const IdParams = t.Object({
  id: t.String({ description: "conv_… identifier", examples: ["conv_01jd5x8r7mf6sb1b2k3n4p5q6r"] }),
});

export const toSummary = (c: ConversationRow) => ({
  id: c.id,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
  title: c.title,
  knowledge_base_id: c.kbId,
});

export const toMessage = (m: MessageRow & { feedback?: FeedbackRow | null }) => ({
  id: m.id,
  role: m.role,
  content: m.content,
  sources: m.sources,
  status: m.status,
  created_at: m.createdAt.toISOString(),
  usage: usageOf(m),
  feedback: toFeedback(m.feedback),
});

true satisfies Same<Static<typeof Usage>, WireUsage | null>;
true satisfies Same<Static<typeof ConversationSummary>, Wire.ConversationSummary>;
true satisfies Same<Static<typeof Message>, Wire.Message>;
true satisfies Same<Static<typeof Pagination>, Wire.Pagination>;
true satisfies Same<Static<typeof MessagePagination>, Wire.Pagination>;
true satisfies Same<Static<typeof ConversationDetail>, Wire.ConversationDetail>;
true satisfies Same<Static<typeof ConversationList>, Wire.ConversationList>;
true satisfies Same<Static<typeof MessageList>, Wire.MessageList>;

/** Wire schemas of the feedback routes (validation and OpenAPI from one source). */
import { type Static, t } from "elysia";
import type * as Wire from "../contract/operate.ts";
import { RATINGS } from "../contract/operate.ts";
import { COMMENT_MAX, Feedback, LIMIT_MESSAGE, ListQuery, Pagination } from "../conversations/index.ts";
import { literals, type Same } from "../http/schema-contract.ts";

export const FeedbackBody = t.Object({
  rating: literals(RATINGS, {
    description: "`up` or `down`.",
    error: "Invalid field 'rating': it must be 'up' or 'down'.",
  }),
  comment: t.Optional(
    t.Union([t.String({ maxLength: COMMENT_MAX }), t.Null()], {
      description: `Why, in the user's words (at most ${COMMENT_MAX} characters).`,
      error: `Invalid field 'comment': it must be a string of at most ${COMMENT_MAX} characters, or null.`,
    }),
  ),
});

export const FeedbackParams = t.Object({
  id: t.String({ description: "conv_… identifier" }),
  message_id: t.String({ description: "msg_… identifier of an assistant reply" }),
});

export const FeedbackItem = t.Composite([
  Feedback,
  t.Object({
    message_id: t.String(),
    conversation_id: t.String(),
    key_id: t.String({ description: "The key that owns the conversation." }),
    question: t.Union([t.String(), t.Null()], { description: "The user message the reply answered." }),
    answer: t.String({ description: "The rated reply's text." }),
    sources: t.Array(t.String(), { description: "The URLs the reply cited." }),
    reply_status: t.String(),
    reply_created_at: t.String({ format: "date-time" }),
  }),
]);

export const FeedbackList = t.Object({ data: t.Array(FeedbackItem), pagination: Pagination });

const instant = (name: string, what: string) =>
  t.Optional(
    t.String({
      description: `${what} (ISO 8601 date or date-time).`,
      error: `Invalid query parameter '${name}': expected an ISO 8601 date or date-time.`,
    }),
  );

export const FeedbackQuery = t.Object({
  rating: t.Optional(literals(RATINGS, { error: "Invalid query parameter 'rating': it must be 'up' or 'down'." })),
  key_id: t.Optional(t.String({ description: "Only ratings on this key's conversations." })),
  from: instant("from", "Ratings given at or after this instant"),
  to: instant("to", "Ratings given before this instant"),
  limit: t.Optional(
    t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Items per page, 1–100.", error: LIMIT_MESSAGE }),
  ),
  cursor: ListQuery.properties.cursor,
});

true satisfies Same<Static<typeof FeedbackItem>, Wire.FeedbackItem>;
true satisfies Same<Static<typeof FeedbackList>, Wire.FeedbackList>;

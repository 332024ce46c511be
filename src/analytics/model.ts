/** Wire schemas of the analytics routes (validation and OpenAPI from one source). */
import { type Static, t } from "elysia";
import type * as Wire from "../contract/index.ts";
import { CERTAINTIES, RATINGS } from "../contract/index.ts";
import { PageQuery, Pagination } from "../http/paging.ts";
import { literals, type Same } from "../http/schema-contract.ts";

const instant = (name: string, what: string) =>
  t.Optional(
    t.String({
      description: `${what}: a date (YYYY-MM-DD, midnight UTC) or an RFC 3339 date-time.`,
      error: `Invalid query parameter '${name}': expected a date (YYYY-MM-DD) or an RFC 3339 date-time.`,
    }),
  );

/** What every analytics read is about: one knowledge base (or all), one period (or all time). */
const scope = {
  knowledge_base_id: t.Optional(t.String({ description: "Only this knowledge base's questions (kb_…)." })),
  from: instant("from", "Questions asked at or after this instant"),
  to: instant("to", "Questions asked before this instant"),
};

export const QuestionsQuery = t.Object({
  ...scope,
  certainty: t.Optional(
    literals(CERTAINTIES, {
      error: "Invalid query parameter 'certainty': it must be 'answered', 'uncertain' or 'no_sources'.",
    }),
  ),
  rating: t.Optional(literals(RATINGS, { error: "Invalid query parameter 'rating': it must be 'up' or 'down'." })),
  topic_id: t.Optional(t.String({ description: "Only this topic's questions (topic_…)." })),
  ...PageQuery.properties,
});

export const TopicsQuery = t.Object({ ...scope, ...PageQuery.properties });

export const PagesQuery = t.Object({
  ...scope,
  limit: PageQuery.properties.limit,
});

const certainty = t.Union([literals(CERTAINTIES), t.Null()], {
  description: "`answered`, `uncertain` or `no_sources`; null for a reply stored before certainty was recorded.",
});

export const AnalyticsQuestion = t.Object({
  message_id: t.String({ description: "The reply (msg_…)." }),
  conversation_id: t.String(),
  knowledge_base_id: t.Union([t.String(), t.Null()]),
  question: t.Union([t.String(), t.Null()], { description: "Null once older than ANALYTICS_RETENTION_DAYS." }),
  certainty,
  rating: t.Union([literals(RATINGS), t.Null()]),
  sources: t.Array(t.String()),
  topic_id: t.String(),
  created_at: t.String({ format: "date-time" }),
});

export const QuestionList = t.Object({ data: t.Array(AnalyticsQuestion), pagination: Pagination });

const share = (what: string) => t.Number({ minimum: 0, maximum: 1, description: what });

export const AnalyticsTopic = t.Object({
  id: t.String(),
  knowledge_base_id: t.Union([t.String(), t.Null()]),
  size: t.Integer({ description: "Questions of the period in it." }),
  question: t.Union([t.String(), t.Null()], { description: "A representative question (nearest its centre)." }),
  terms: t.Array(t.String(), { description: "Its weightiest terms, as the index stems them." }),
  answered_share: share("Share of its questions answered."),
  uncertain_share: share("Share answered uncertainly."),
  no_sources_share: share("Share the knowledge base had nothing for."),
  down_share: t.Union([share("Share of its rated replies rated down."), t.Null()]),
  rated: t.Integer(),
  pages: t.Array(t.Object({ url: t.String(), title: t.Union([t.String(), t.Null()]), citations: t.Integer() })),
  days: t.Array(t.Object({ date: t.String(), questions: t.Integer() })),
  first_asked_at: t.String({ format: "date-time" }),
  last_asked_at: t.String({ format: "date-time" }),
});

export const TopicList = t.Object({ data: t.Array(AnalyticsTopic), pagination: Pagination });

const PageUse = t.Object({
  url: t.String(),
  title: t.String(),
  knowledge_base_id: t.String(),
  citations: t.Integer(),
  down_citations: t.Integer(),
});

export const PagesReport = t.Object({
  object: t.Literal("analytics.pages"),
  cited: t.Array(PageUse),
  down_rated: t.Array(PageUse),
  never_cited: t.Array(PageUse),
  never_cited_total: t.Integer(),
});

true satisfies Same<Static<typeof AnalyticsQuestion>, Wire.AnalyticsQuestion>;
true satisfies Same<Static<typeof AnalyticsTopic>, Wire.AnalyticsTopic>;
true satisfies Same<Static<typeof PagesReport>, Wire.PagesReport>;

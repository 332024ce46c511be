/**
 * Analytics for docs teams (admin keys only: question text is theirs alone): what people ask
 * (GET /v1/analytics/questions), grouped into topics (/topics), the topics the knowledge base
 * does not answer (/gaps) and how the pages are used (/pages). Replies are copied in on the
 * sweep's beat and before each read (ingest.ts); ANALYTICS_RETENTION_DAYS drops question text
 * past its age (retention.ts) while counts and topics stay.
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, adminAdmission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { type Cursor, decodeCursor, encodeCursor } from "../http/cursor.ts";
import { parseDateTime } from "../http/date-time.ts";
import { ApiError, clip } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { plainLimit } from "../http/paging.ts";
import { routeDoc } from "../http/route-doc.ts";
import { getKnowledgeBase } from "../knowledge/index.ts";
import type { Ingester } from "./ingest.ts";
import { PagesQuery, PagesReport, QuestionList, QuestionsQuery, TopicList, TopicsQuery } from "./model.ts";
import { pagesReport } from "./pages.ts";
import { listQuestions } from "./questions.ts";
import type { Scope } from "./scope.ts";
import { listTopics } from "./topics.ts";

export type AnalyticsDeps = AdmissionDeps & { logger: Logger; ingester: Ingester };

/** A read first copies in new replies for at most this long (ms); the sweep copies the rest. */
const CATCH_UP_MS = 1_000;

function instant(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(v) ? parseDateTime(`${v}T00:00:00Z`)?.getTime() : parseDateTime(v)?.getTime();
  if (ms === undefined)
    throw new ApiError(
      "invalid_request",
      `Invalid query parameter '${name}': expected a date (YYYY-MM-DD) or an RFC 3339 date-time.`,
      { param: name },
    );
  return ms;
}

async function scopeOf(
  deps: AnalyticsDeps,
  q: { knowledge_base_id?: string; from?: string; to?: string },
): Promise<Scope> {
  if (q.knowledge_base_id !== undefined && !(await getKnowledgeBase(deps.db, q.knowledge_base_id)))
    throw new ApiError("not_found", `No knowledge base '${clip(q.knowledge_base_id)}'.`, {
      param: "knowledge_base_id",
    });
  await deps.ingester.catchUp(deps.now(), Infinity, CATCH_UP_MS);
  return { kbId: q.knowledge_base_id, from: instant(q.from, "from"), to: instant(q.to, "to") };
}

const pagination = async (deps: AnalyticsDeps, more: boolean, last: Cursor | null, scope: string) => ({
  has_more: more,
  next_cursor: more && last ? await encodeCursor(deps.db, last, scope) : null,
});

const cursorOf = (deps: AnalyticsDeps, raw: string | undefined, prefix: "msg" | "topic", scope: string) =>
  raw === undefined ? null : decodeCursor(deps.db, raw, { prefix, scope });

export const analyticsRoutes = (deps: AnalyticsDeps) =>
  new Elysia({ tags: ["Analytics"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .onTransform(plainLimit)
    .get(
      "/analytics/questions",
      async ({ query }) => {
        const scope = await scopeOf(deps, query);
        const cursor = await cursorOf(deps, query.cursor, "msg", "analytics.questions");
        const filter = { ...scope, certainty: query.certainty, rating: query.rating, topicId: query.topic_id };
        const { rows, last, more } = await listQuestions(deps.db, filter, query.limit ?? 20, cursor);
        return { data: rows, pagination: await pagination(deps, more, last, "analytics.questions") };
      },
      {
        query: QuestionsQuery,
        response: { 200: QuestionList, ...ErrorResponses, 403: ErrorBody },
        detail: routeDoc(
          "List asked questions (admin)",
          "The questions of the period, newest first, each with its reply's certainty, rating, sources and topic. Filters: knowledge_base_id, from, to, certainty, rating, topic_id.",
          { operationId: "listAnalyticsQuestions", success: "QuestionList" },
        ),
      },
    )
    .get(
      "/analytics/topics",
      async ({ query }) => {
        const scope = await scopeOf(deps, query);
        const cursor = await cursorOf(deps, query.cursor, "topic", "analytics.topics");
        const { rows, last, more } = await listTopics(deps.db, scope, false, query.limit ?? 20, cursor);
        return { data: rows, pagination: await pagination(deps, more, last, "analytics.topics") };
      },
      {
        query: TopicsQuery,
        response: { 200: TopicList, ...ErrorResponses, 403: ErrorBody },
        detail: routeDoc(
          "List question topics (admin)",
          "The period's questions grouped by topic (similar questions together), largest first, each with its shares answered and rated down and the pages its replies cited most.",
          { operationId: "listAnalyticsTopics", success: "TopicList" },
        ),
      },
    )
    .get(
      "/analytics/gaps",
      async ({ query }) => {
        const scope = await scopeOf(deps, query);
        const cursor = await cursorOf(deps, query.cursor, "topic", "analytics.gaps");
        const { rows, last, more } = await listTopics(deps.db, scope, true, query.limit ?? 20, cursor);
        return { data: rows, pagination: await pagination(deps, more, last, "analytics.gaps") };
      },
      {
        query: TopicsQuery,
        response: { 200: TopicList, ...ErrorResponses, 403: ErrorBody },
        detail: routeDoc(
          "List the gaps (admin)",
          "Topics whose questions mostly went unanswered (uncertain, no_sources) or were rated down, the most unmet first: what to write next.",
          { operationId: "listAnalyticsGaps", success: "TopicList" },
        ),
      },
    )
    .get("/analytics/pages", async ({ query }) => pagesReport(deps.db, await scopeOf(deps, query), query.limit ?? 20), {
      query: PagesQuery,
      response: { 200: PagesReport, ...ErrorResponses, 403: ErrorBody },
      detail: routeDoc(
        "Report page use (admin)",
        "The pages the period's replies cited most, those most cited in replies rated down, and those never cited (`limit` each).",
        { operationId: "analyticsPages", success: "PagesReport" },
      ),
    });

export { createIngester, type Ingester, ingestPending } from "./ingest.ts";
export { AnalyticsQuestion, AnalyticsTopic, PagesReport, QuestionList, TopicList } from "./model.ts";
export { forgetOldQuestions } from "./retention.ts";

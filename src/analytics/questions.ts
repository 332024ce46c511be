/** GET /v1/analytics/questions: the questions of the period, newest first, with how each went. */
import { type SQL, sql } from "drizzle-orm";
import type { AnalyticsQuestion, Certainty, Rating } from "../contract/index.ts";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/rows.ts";
import type { Cursor } from "../http/cursor.ts";
import { type Scope, scopedQuestions } from "./scope.ts";

export interface QuestionFilter extends Scope {
  certainty?: Certainty;
  rating?: Rating;
  topicId?: string;
}

interface Row {
  message_id: string;
  conversation_id: string;
  kb_id: string | null;
  question: string | null;
  certainty: Certainty | null;
  rating: Rating | null;
  sources: string[] | string;
  topic_id: string;
  created_ms: string | number;
}

export async function listQuestions(
  db: Db,
  f: QuestionFilter,
  limit: number,
  cursor: Cursor | null,
): Promise<{ rows: AnalyticsQuestion[]; last: Cursor | null; more: boolean }> {
  const where = [
    sql`true`,
    f.certainty ? sql`certainty = ${f.certainty}` : undefined,
    f.rating ? sql`rating = ${f.rating}` : undefined,
    f.topicId ? sql`topic_id = ${f.topicId}` : undefined,
    cursor
      ? sql`(created_at, message_id) < (${new Date(cursor.createdAt).toISOString()}::timestamptz, ${cursor.id})`
      : undefined,
  ].filter((c): c is SQL => c !== undefined);
  const rows = await rowsOf<Row>(
    db,
    sql`with ${scopedQuestions(f)}
    select message_id, conversation_id, kb_id, question, certainty, rating, sources, topic_id,
      (extract(epoch from created_at) * 1000)::bigint as created_ms
    from q where ${sql.join(where, sql` and `)}
    order by created_at desc, message_id desc
    limit ${limit + 1}`,
  );
  const page = rows.slice(0, limit).map(
    (r): AnalyticsQuestion => ({
      message_id: r.message_id,
      conversation_id: r.conversation_id,
      knowledge_base_id: r.kb_id,
      question: r.question,
      certainty: r.certainty,
      rating: r.rating,
      sources: typeof r.sources === "string" ? (JSON.parse(r.sources) as string[]) : r.sources,
      topic_id: r.topic_id,
      created_at: new Date(Number(r.created_ms)).toISOString(),
    }),
  );
  const end = page.at(-1);
  return {
    rows: page,
    last: end ? { createdAt: Date.parse(end.created_at), id: end.message_id } : null,
    more: rows.length > limit,
  };
}

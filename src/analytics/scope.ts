/**
 * The period and knowledge base every analytics read is about, as one SQL condition on
 * `analytics_questions a` (joined with `message_feedback f` where ratings count).
 */
import { type SQL, sql } from "drizzle-orm";

export interface Scope {
  kbId?: string;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
}

const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

export function scopeSql(s: Scope): SQL {
  const parts = [
    sql`true`,
    s.kbId !== undefined ? sql`a.kb_id = ${s.kbId}` : undefined,
    s.from !== undefined ? sql`a.created_at >= ${at(s.from)}` : undefined,
    s.to !== undefined ? sql`a.created_at < ${at(s.to)}` : undefined,
  ].filter((p): p is SQL => p !== undefined);
  return sql.join(parts, sql` and `);
}

/** The questions of the scope with their reply's rating: the CTE every report starts from. */
export const scopedQuestions = (s: Scope): SQL => sql`
  q as (
    select a.message_id, a.conversation_id, a.kb_id, a.question, a.terms, a.certainty, a.sources, a.topic_id,
      a.created_at, f.rating
    from analytics_questions a left join message_feedback f on f.message_id = a.message_id
    where ${scopeSql(s)}
  )`;

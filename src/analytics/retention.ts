/**
 * ANALYTICS_RETENTION_DAYS: question text older than that leaves analytics (set to null), on the
 * sweep's beat. What is counted stays — the row, its certainty, sources, rating and topic, and
 * its term vector (the index's stemmed terms, not the text) — so periods past the retention
 * still count their questions and topics. The conversations themselves are not touched: they are
 * their keys' data, deleted through the API.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";

const DAY_MS = 86_400_000;
/** At most this many rows a beat: a first run over a long history does not hold the table. */
const BATCH = 5_000;

export async function forgetOldQuestions(db: Db, now: number, retentionDays: number | null): Promise<void> {
  if (retentionDays === null) return;
  const before = new Date(now - retentionDays * DAY_MS).toISOString();
  await db.execute(sql`
    update analytics_questions set question = null
    where message_id in (
      select message_id from analytics_questions
      where question is not null and created_at < ${before}::timestamptz
      order by created_at limit ${BATCH})`);
}

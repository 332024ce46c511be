/**
 * Ended replies into analytics: each with the question it answered, that question's term vector
 * (vectors.ts) and its topic, placed once when it arrives. Runs on the sweep's beat and for up to
 * a second before each analytics read (bounded: a backlog is the sweep's), in batches; instances doing
 * it at once each copy a reply at most once (INSERT … ON CONFLICT DO NOTHING on the reply's id,
 * the topic moved only by the instance whose insert won).
 *
 * Which replies are new: those asked since an hour before the newest one copied (a reply ends
 * within its lease or is ended as failed by the sweep, long before an hour), that are not in
 * yet. The first run walks the whole history, a batch at a time.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Certainty } from "../contract/analytics.ts";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/rows.ts";
import type { TermWeights } from "../db/schema-analytics.ts";
import type { Embedder } from "../knowledge/index.ts";
import { queryTerms } from "../knowledge/index.ts";
import { embedQuestions, joinTopic, type Meaning, placeInTopic, sameKb, textArray } from "./place.ts";
import { phrasing, unit } from "./vectors.ts";

const BATCH = 200;

interface Pending {
  id: string;
  conversation_id: string;
  key_id: string;
  kb_id: string | null;
  created_at: string;
  sources: string[];
  certainty: Certainty | null;
  question: string | null;
}

const pendingSql = (limit: number, all: boolean): SQL => sql`
  select m.id, m.conversation_id, c.key_id, c.kb_id, m.created_at::text as created_at, m.sources, m.certainty,
    (select u.content from messages u
      where u.conversation_id = m.conversation_id and u.role = 'user' and (u.created_at, u.id) < (m.created_at, m.id)
      order by u.created_at desc, u.id desc limit 1) as question
  from messages m join conversations c on c.id = m.conversation_id
  where m.role = 'assistant' and m.status <> 'in_progress'
    ${all ? sql`` : sql`and m.created_at >= coalesce((select max(created_at) from analytics_questions), '-infinity'::timestamptz) - interval '1 hour'`}
    and not exists (select 1 from analytics_questions a where a.message_id = m.id)
  order by m.created_at, m.id
  limit ${limit}`;

/**
 * A question's unit vector: the terms that carry it, as its knowledge base's search weighs them,
 * a word the documents lack also by its rarity among the questions already asked (vectors.ts `phrasing`).
 */
async function vectorOf(db: Db, question: string, kbId: string | null): Promise<TermWeights> {
  if (!question.trim()) return {};
  const found = await queryTerms(db, question, kbId ? { kbId } : {});
  const terms = found.filter((t) => t.from === "message" && t.weight > 0);
  if (terms.length === 0) return {};
  const unseen = terms.filter((t) => !t.known);
  if (unseen.length === 0) return unit(Object.fromEntries(terms.map((t) => [t.term, t.weight])));
  const counts = await rowsOf<{ term: string; df: number; n: number }>(
    db,
    sql`select t as term,
      (select count(*) from analytics_questions a where ${sameKb(sql`a.kb_id`, kbId)} and a.terms ? t) as df,
      (select count(*) from analytics_questions a where ${sameKb(sql`a.kb_id`, kbId)}) as n
    from unnest(${textArray(unseen.map((t) => t.term))}) as t`,
  );
  const df = new Map(counts.map((c) => [c.term, Number(c.df)]));
  const asked = Number(counts[0]?.n ?? 0);
  const weight = (t: (typeof terms)[number]) => (t.known ? t.weight : t.weight * phrasing(asked, df.get(t.term) ?? 0));
  return unit(Object.fromEntries(terms.map((t) => [t.term, weight(t)])));
}

async function copy(db: Db, reply: Pending, now: Date, meaning: Meaning | undefined): Promise<void> {
  const vector = await vectorOf(db, reply.question ?? "", reply.kb_id);
  const topic = await placeInTopic(db, reply.kb_id, vector, now, meaning);
  const inserted = await rowsOf<{ message_id: string }>(
    db,
    sql`insert into analytics_questions
      (message_id, conversation_id, key_id, kb_id, question, terms, certainty, sources, topic_id, created_at)
      values (${reply.id}, ${reply.conversation_id}, ${reply.key_id}, ${reply.kb_id}, ${reply.question},
        ${JSON.stringify(vector)}::jsonb, ${reply.certainty}, ${JSON.stringify(reply.sources)}::jsonb, ${topic.id},
        ${reply.created_at}::timestamptz)
      on conflict (message_id) do nothing returning message_id`,
  );
  if (inserted.length === 0) return;
  await joinTopic(db, topic, now, meaning);
}

/**
 * Copies up to `max` ended replies in; returns how many it looked at (fewer than `max`: caught
 * up). `all`: every reply not in yet, however old its stamp (a store whose replies were written
 * with another clock, or loaded from elsewhere), by a scan of every reply instead of the recent ones.
 */
export async function ingestPending(
  db: Db,
  now: number,
  max = 1_000,
  all = false,
  /** Stop after this long (real time, ms), whatever is left: a read does not wait on a backlog. */
  budgetMs = Infinity,
  /** Hybrid search's model: questions are grouped by meaning too (meaning.ts). */
  embedder?: Embedder,
): Promise<number> {
  const until = performance.now() + budgetMs;
  let seen = 0;
  while (seen < max) {
    const batch = await rowsOf<Pending>(db, pendingSql(Math.min(BATCH, max - seen), all));
    const meanings = embedder ? await embedQuestions(db, embedder, batch) : undefined;
    for (const [i, reply] of batch.entries()) {
      if (performance.now() > until) return seen;
      await copy(db, reply, new Date(now), meanings?.[i]);
      seen++;
    }
    if (batch.length < BATCH) break;
  }
  return seen;
}

export interface Ingester {
  /** `ingestPending`, after any copy-in this ingester is already running. */
  catchUp(now: number, max: number, budgetMs?: number): Promise<number>;
}

/**
 * One copy-in at a time for one createParley (its sweep and its reads): two at once could each
 * start a new topic for near-twin questions that arrived together. Instances still copy in side
 * by side; the worst that does is split such a pair between two topics.
 */
export function createIngester(db: Db, embedder?: Embedder): Ingester {
  let running: Promise<unknown> = Promise.resolve();
  return {
    catchUp(now, max, budgetMs) {
      const next = running.then(() => ingestPending(db, now, max, false, budgetMs, embedder));
      running = next.catch(() => {});
      return next;
    },
  };
}

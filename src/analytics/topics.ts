/**
 * GET /v1/analytics/topics and /gaps: the period's questions grouped by the topic each was
 * placed in when it arrived (ingest.ts), so a read is one aggregation over the period's rows
 * (analytics_questions' indexes), never a clustering. Largest first; gaps are the topics whose
 * questions mostly went unanswered (`uncertain`, `no_sources`) or were rated down, the most
 * unmet first. Each topic on the page then gets its details: its representative question (the
 * one of the period nearest its centroid), the pages its replies cited most, its days.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnalyticsTopic } from "../contract/index.ts";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/rows.ts";
import type { TermWeights } from "../db/schema-analytics.ts";
import type { Cursor } from "../http/cursor.ts";
import { type Scope, scopedQuestions } from "./scope.ts";
import { cosine, topTerms } from "./vectors.ts";

/** A topic is a gap when at least this share of its questions went unmet (or of its ratings were down). */
export const GAP_SHARE = 0.5;
const PAGES_PER_TOPIC = 5;
const TERMS_SHOWN = 6;
/** The representative is looked for among a topic's most recent questions of the period. */
const REPRESENTATIVE_POOL = 100;

interface Totals {
  topic_id: string;
  size: number;
  answered: number;
  uncertain: number;
  no_sources: number;
  rated: number;
  down: number;
  rank: number;
  first_ms: string;
  last_ms: string;
}

const n = (v: unknown) => Number(v);

/** The page of topics (or gaps), ranked by size (gaps: by unmet questions), then id. */
export async function listTopics(
  db: Db,
  scope: Scope,
  gapsOnly: boolean,
  limit: number,
  cursor: Cursor | null,
): Promise<{ rows: AnalyticsTopic[]; last: Cursor | null; more: boolean }> {
  const unmet = sql`count(*) filter (where certainty in ('uncertain', 'no_sources')) + count(*) filter (where rating = 'down')`;
  const rank = gapsOnly ? unmet : sql`count(*)`;
  const having = [
    sql`true`,
    gapsOnly
      ? sql`(count(*) filter (where certainty in ('uncertain', 'no_sources')) >= ${GAP_SHARE}::float8 * count(*)
          or (count(rating) > 0 and count(*) filter (where rating = 'down') >= ${GAP_SHARE}::float8 * count(rating)))`
      : undefined,
    cursor ? sql`(${rank}, topic_id) < (${cursor.createdAt}, ${cursor.id})` : undefined,
  ].filter((c): c is SQL => c !== undefined);
  const totals = await rowsOf<Totals>(
    db,
    sql`with ${scopedQuestions(scope)}
    select topic_id, count(*) as size,
      count(*) filter (where certainty = 'answered') as answered,
      count(*) filter (where certainty = 'uncertain') as uncertain,
      count(*) filter (where certainty = 'no_sources') as no_sources,
      count(rating) as rated, count(*) filter (where rating = 'down') as down, ${rank} as rank,
      (extract(epoch from min(created_at)) * 1000)::bigint as first_ms,
      (extract(epoch from max(created_at)) * 1000)::bigint as last_ms
    from q group by topic_id
    having ${sql.join(having, sql` and `)}
    order by rank desc, topic_id desc
    limit ${limit + 1}`,
  );
  const page = totals.slice(0, limit);
  const details = await detailsOf(
    db,
    scope,
    page.map((t) => t.topic_id),
  );
  const rows = page.map((t): AnalyticsTopic => {
    const d = details.get(t.topic_id);
    const size = n(t.size);
    return {
      id: t.topic_id,
      knowledge_base_id: d?.kbId ?? null,
      size,
      question: d?.question ?? null,
      terms: d?.terms ?? [],
      answered_share: n(t.answered) / size,
      uncertain_share: n(t.uncertain) / size,
      no_sources_share: n(t.no_sources) / size,
      down_share: n(t.rated) > 0 ? n(t.down) / n(t.rated) : null,
      rated: n(t.rated),
      pages: d?.pages ?? [],
      days: d?.days ?? [],
      first_asked_at: new Date(n(t.first_ms)).toISOString(),
      last_asked_at: new Date(n(t.last_ms)).toISOString(),
    };
  });
  const end = page.at(-1);
  return { rows, last: end ? { createdAt: n(end.rank), id: end.topic_id } : null, more: totals.length > limit };
}

interface Details {
  kbId: string | null;
  terms: string[];
  question: string | null;
  pages: AnalyticsTopic["pages"];
  days: AnalyticsTopic["days"];
}

async function detailsOf(db: Db, scope: Scope, ids: string[]): Promise<Map<string, Details>> {
  const out = new Map<string, Details>();
  if (ids.length === 0) return out;
  const these = sql`topic_id in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
  const [topics, members, pages, days] = await Promise.all([
    rowsOf<{ id: string; kb_id: string | null; centroid: TermWeights }>(
      db,
      sql`select id, kb_id, centroid from analytics_topics where id in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    ),
    rowsOf<{ topic_id: string; question: string; terms: TermWeights }>(
      db,
      sql`with ${scopedQuestions(scope)}
      select topic_id, question, terms from (
        select topic_id, question, terms, row_number() over (partition by topic_id order by created_at desc) as i
        from q where question is not null and ${these}) r
      where i <= ${REPRESENTATIVE_POOL}`,
    ),
    rowsOf<{ topic_id: string; url: string; title: string | null; citations: number }>(
      db,
      sql`with ${scopedQuestions(scope)}
      select c.topic_id, c.url, (select d.title from documents d where d.kb_id = c.kb_id and d.url = c.url limit 1) as title,
        c.citations
      from (select topic_id, kb_id, url, count(*) as citations
        from q cross join lateral jsonb_array_elements_text(q.sources) as url
        where ${these} group by topic_id, kb_id, url) c
      order by c.citations desc, c.url`,
    ),
    rowsOf<{ topic_id: string; day: string; questions: number }>(
      db,
      sql`with ${scopedQuestions(scope)}
      select topic_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as questions
      from q where ${these} group by topic_id, day order by day`,
    ),
  ]);
  for (const t of topics) {
    const own = members.filter((m) => m.topic_id === t.id);
    const best = own.reduce<{ q: string; s: number } | null>((b, m) => {
      const s = cosine(m.terms, t.centroid);
      return !b || s > b.s ? { q: m.question, s } : b;
    }, null);
    out.set(t.id, {
      kbId: t.kb_id,
      terms: topTerms(t.centroid, TERMS_SHOWN),
      question: best?.q ?? null,
      pages: pages
        .filter((p) => p.topic_id === t.id)
        .slice(0, PAGES_PER_TOPIC)
        .map((p) => ({ url: p.url, title: p.title, citations: n(p.citations) })),
      days: days.filter((d) => d.topic_id === t.id).map((d) => ({ date: d.day, questions: n(d.questions) })),
    });
  }
  return out;
}

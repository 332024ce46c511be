/**
 * Compaction of a finished reply's events. Every token is a stored event,
 * about 30× the reply's text. Once a reply has ended and is older than the retention
 * (REPLY_EVENTS_RETENTION), one statement per batch replaces its events by what a resume needs:
 * its non-token events verbatim (`start`, the `sources` ones, the terminal one), the seq of its
 * first token event, and the cumulative text length after each event from the first token to the
 * last (an int array, 4 bytes a token; a `sources` event among the tokens repeats the length
 * before it). The text itself is the message's `content`, kept in `compacted_events.text` only
 * when it differs. A resume after id `a` then gets the kept events after it in order, the text
 * after offset(a) as one token event with the last token's id among them (reads.ts,
 * readEvents): a `sources` event sent among the tokens comes before that text, so still before
 * the token that cites it. Tokens interleaved with any other event (never, by the contract)
 * keep every event verbatim.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { rowsOf } from "./statements.ts";

/** Replies compacted by one statement: bounded, so one batch holds locks briefly. */
export const COMPACT_BATCH = 50;

/**
 * Compacts up to `limit` ended replies created before `cutoff` (ms). Conditional on the reply
 * still being ended and not compacted, with its id in every where, and `skip locked`, so
 * instances sweeping at once compact each reply once. Returns how many replies and events.
 */
export async function compactEvents(
  db: Db,
  cutoff: number,
  limit = COMPACT_BATCH,
): Promise<{ replies: number; events: number }> {
  const [row] = await rowsOf<{ replies: number | string; events: number | string }>(
    db,
    sql`
    with due as (
      select id from messages
      where role = 'assistant' and status <> 'in_progress' and token_offsets is null
        and created_at < ${new Date(cutoff).toISOString()}::timestamptz
      order by created_at limit ${limit}
      for update skip locked
    ),
    ev as (
      select e.message_id, e.seq, e.data, (e.data::jsonb ->> 'type') = 'token' as tok,
             (e.data::jsonb ->> 'type') = 'sources' as src, e.data::jsonb ->> 'content' as piece
      from message_events e join due on due.id = e.message_id
    ),
    span as (
      select message_id, min(seq) as first, max(seq) as last from ev where tok group by message_id
    ),
    toks as (
      select ev.message_id, ev.seq, ev.tok, ev.src, case when ev.tok then ev.piece end as piece,
             (sum(case when ev.tok then char_length(ev.piece) else 0 end)
               over (partition by ev.message_id order by ev.seq))::int as upto
      from ev join span on span.message_id = ev.message_id and ev.seq between span.first and span.last
    ),
    summary as (
      select d.id,
        coalesce(array_agg(t.upto order by t.seq) filter (where t.seq is not null), '{}'::int[]) as offsets,
        coalesce(min(t.seq), 0) as first,
        count(t.seq) = 0 or (max(t.seq) - min(t.seq) + 1 = count(t.seq) and bool_and(t.tok or t.src)) as contiguous,
        coalesce(string_agg(t.piece, '' order by t.seq), '') as text
      from due d left join toks t on t.message_id = d.id
      group by d.id
    ),
    kept as (
      select ev.message_id, jsonb_agg(jsonb_build_array(ev.seq, ev.data) order by ev.seq) as events
      from ev join summary s on s.id = ev.message_id
      where not ev.tok or not s.contiguous
      group by ev.message_id
    ),
    done as (
      update messages m set
        token_offsets = case when s.contiguous then s.offsets else '{}'::int[] end,
        compacted_events = jsonb_build_object(
          'first', case when s.contiguous then s.first else 0 end,
          'kept', coalesce(k.events, '[]'::jsonb)
        ) || case when s.text = m.content or not s.contiguous then '{}'::jsonb else jsonb_build_object('text', s.text) end
      from summary s left join kept k on k.message_id = s.id
      where m.id = s.id and m.status <> 'in_progress' and m.token_offsets is null
      returning m.id
    ),
    gone as (
      delete from message_events e using done where e.message_id = done.id returning 1
    )
    select (select count(*) from done) as replies, (select count(*) from gone) as events`,
  );
  return { replies: Number(row?.replies ?? 0), events: Number(row?.events ?? 0) };
}

/**
 * The question's terms, as common table expressions the search statement (search-statement.ts)
 * builds on: each lexeme with where it comes from (the message or the conversation's context),
 * whether it is a word, a question word or an artefact of cutting, its document frequency and
 * its weights in scores and in coverage. `termsSql` lists them alone (POST …/search).
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { closedCompoundConfigsSql, configCaseSql, cutCaseSql, questionWordsCaseSql } from "./language.ts";
import type { SearchOptions } from "./search-options.ts";

/** Longest question we read (characters) and most terms we use: bounds the statement's cost. */
export const MAX_QUESTION_CHARS = 2_000;
const MAX_TERMS = 32;
/** Passages whose title or heading holds an acronym's letters read for it in capitals (initials.ts). */
const ACRONYM_HEADINGS = 50;

export const num = (n: number) => {
  if (!Number.isFinite(n)) throw new Error(`search option must be a finite number, got ${n}`);
  return sql.raw(String(n));
};

/** The question's values the statement takes as parameters; everything else shapes its text. */
const Q = sql.placeholder("q");
const WORDS = sql.placeholder("words");
export const KB = sql.placeholder("kb");
const CFG = sql.placeholder("cfg");
const CTX = sql.placeholder("ctx");
const CTX_WORDS = sql.placeholder("ctxWords");
const LOOSE = sql.placeholder("loose");
const INITIALS = sql.placeholder("initials");
const COMPOUNDS = sql.placeholder("compounds");
// The same texts as a language with no stemmer reads them (unstemmed.ts), and whether it does.
const Q_CUT = sql.placeholder("qCut");
const WORDS_CUT = sql.placeholder("wordsCut");
const CTX_CUT = sql.placeholder("ctxCut");
const CTX_WORDS_CUT = sql.placeholder("ctxWordsCut");
const CUT = sql.placeholder("cut");
// The message's and context's words from their configuration's stop list, and the words without
// them (stop-words.ts): a JSON object by configuration name.
const STOPS = sql.placeholder("stops");
/** The text as the question's language reads it: cut to prefixes (qc.cut) or not. */
const read = (plain: SQLWrapper, cut: SQLWrapper) => sql`(case when qc.cut then ${cut}::text else ${plain}::text end)`;

/** Passages matching tsquery `lit`, through the GIN index only (in the knowledge base, if one). */
export const candidatesSql = (o: Shape, lit: SQL, lim: SQL) =>
  o.kbId === undefined
    ? sql`knowledge_candidates(${lit}::tsquery, ${lim})`
    : sql`knowledge_candidates_in(${lit}::tsquery, ${KB}::text, ${lim})`;

/** `knowledge_base_terms g` restricted to the knowledge base searched (all of them without one). */
const termsInKb = (o: Shape) => (o.kbId === undefined ? sql`` : sql` and g.kb_id = ${KB}::text`);
/** Whether the knowledge base searched holds lexeme `lexeme` (an SQL expression) as a term. */
const heldSql = (o: Shape, lexeme: SQL) =>
  sql`exists (select 1 from knowledge_base_terms g where g.lexeme = ${lexeme}${termsInKb(o)} and g.df > 0)`;
/** The document frequency of lexeme `lexeme` (an SQL expression) in the knowledge base searched (null: none). */
const dfSql = (o: Shape, lexeme: SQL) =>
  sql`(select sum(g.df) from knowledge_base_terms g where g.lexeme = ${lexeme}${termsInKb(o)})`;

/** Options with their defaults: the statement's shape. */
export type Shape = Required<Omit<SearchOptions, "kbId" | "language">> & SearchOptions;

/**
 * The question's text-search configuration, as the common table expression `qc`: the one asked
 * for, else the knowledge base's language, else the language most of its documents are in; and
 * `cut`, whether that language has no stemmer, so that its text is read cut (unstemmed.ts).
 */
export function configCte(o: Shape): SQL {
  // Unset: the knowledge base's language, else the language most of its documents are in.
  const byDocuments =
    o.kbId === undefined
      ? sql`(select language from documents group by language order by count(*) desc, language limit 1)`
      : sql`(select language from documents where kb_id = ${KB}::text group by language order by count(*) desc, language limit 1)`;
  const language =
    o.kbId === undefined
      ? byDocuments
      : sql`(select coalesce((select language from knowledge_bases where id = ${KB}::text), ${byDocuments}))`;
  if (o.language)
    return sql`qc as (select coalesce(${CFG}::text, 'english') as cfg, coalesce(${CUT}::boolean, false) as cut)`;
  // The language read once (a knowledge base without one counts its documents' languages):
  // `offset 0` keeps the planner from copying the subquery into both expressions.
  return sql`qc as (select coalesce(${sql.raw(configCaseSql("l.language"))}, 'english') as cfg,
    coalesce(${sql.raw(cutCaseSql("l.language"))}, false) as cut from (select ${language} offset 0) l(language))`;
}

/**
 * The question's terms as common table expressions, `st` to `qt`: the statistics, the text
 * search configuration, and each term with where it comes from (message or context), its
 * document frequency and its weights. The search builds on them; so does `termsSql`.
 */
export function termsCtes(o: Shape): SQL {
  // The statistics (IDF, average length) are the knowledge base's own, so another knowledge
  // base's documents never move its scores or its abstention; without one, the whole store's.
  const stats =
    o.kbId === undefined
      ? sql`select coalesce(sum(passages), 0) as passages, coalesce(sum(total_len), 0) as total_len,
    coalesce(sum(total_words), 0) as total_words from knowledge_base_stats`
      : sql`select coalesce(k.passages, 0) as passages, coalesce(k.total_len, 0) as total_len,
    coalesce(k.total_words, 0) as total_words
    from (select 1) one left join knowledge_base_stats k on k.kb_id = ${KB}::text`;
  // A term's `df` scores it; its `postings`, in every knowledge base (the GIN index holds them
  // all), are what reading them from the index costs, which picks the candidate terms.
  const df = o.kbId === undefined ? sql`sum(g.df)` : sql`sum(g.df) filter (where g.kb_id = ${KB}::text)`;
  return sql`
with st as (
  select passages::float8 as n, case when passages > 0 then total_len::float8 / passages else 1 end as avglen,
    -- How much of its language the knowledge base has seen (W / (W + unseenHalfWords), W its size
    -- in words): the abstention's unseen word weight and its count of a page's words scale by it.
    case when total_words > 0 then total_words::float8 / (total_words + ${num(o.unseenHalfWords)}) else 0 end as seen
  from (${stats}) s
),
${configCte(o)},
-- The question's terms. "word": a word of it, not a CJK bigram (see wordsOnlyText); "framing":
-- one of its language's question words (QUESTION_WORDS), or a term only the function words of a
-- language with no stop list give (qf, stop-words.ts), which scores but weighs nothing in
-- coverage; "ctx": a term of the conversation's context only (the earlier question a follow-up
-- continues), which scores and covers at contextWeight of its weight if it is a word (a CJK
-- context's bigrams and characters would outnumber a short message's words: they weigh nothing);
-- "loose": a CJK pair of characters the segmenter left alone (loosePairsText), which scores as a
-- word. Over MAX_TERMS (a long CJK question: words, bigrams and characters), context terms go
-- first, then single characters, then bigrams. "acronym": the initials of a run of the message's
-- content words that a title or heading of the knowledge base writes in capitals (initials.ts:
-- "JSON web tokens" and "JWT Plugin"), which scores as a word and weighs nothing in coverage (it
-- is the message's words again). Capitals, because lower-case initials are often a word ("let").
-- "part": a half of a closed compound of the message (qs below), which scores and covers as a
-- word; the compound itself ("split") no longer weighs against coverage as an unseen word.
qx as (
  select distinct x.lexeme, false as ctx from qc, unnest(to_tsvector(qc.cfg::regconfig, ${read(Q, Q_CUT)})) x
),
-- The acronyms' candidates (initials.ts): first the initials the knowledge base holds as a term
-- as written (one to_tsvector for them all), then, for those few, the runs' stop words and the
-- capitals in a title or heading.
qi as (
  select split_part(line, ' ', 1) as initials, string_to_array(substr(line, strpos(line, ' ') + 1), ' ') as run
  from unnest(string_to_array(${INITIALS}::text, E'\n')) line where line <> ''
),
qk as (
  select distinct x.lexeme
  from qc, unnest(to_tsvector(qc.cfg::regconfig, (select coalesce(string_agg(distinct initials, ' '), '') from qi))) x
  where x.lexeme in (select initials from qi) and x.lexeme not in (select lexeme from qx)
    and ${heldSql(o, sql`x.lexeme`)}
),
qa as (
  select distinct k.lexeme from qk k join qi on qi.initials = k.lexeme cross join qc
  where not exists (select 1 from unnest(qi.run) w where to_tsvector(qc.cfg::regconfig, w) = ''::tsvector)
    and exists (select 1 from ${candidatesSql(o, sql`(quote_literal(k.lexeme) || ':AB')`, sql`${num(ACRONYM_HEADINGS)}`)} c0(id)
      join chunks c on c.id = c0.id join documents d on d.id = c.document_id
      where c.heading || ' ' || d.title ~ ('(^|[^[:alnum:]])' || upper(k.lexeme) || '([^[:alnum:]]|$)'))
),
-- Closed compounds (compounds.ts), in the languages that write them (CLOSED_COMPOUNDS): a long
-- word of the message the knowledge base lacks, cut into a head and a tail it holds (one term
-- each under its configuration), searches them as words of the message. Of a word's cuts, the
-- one whose halves are commonest (the product of their document frequencies: a common word is
-- the likelier half), then the one dropping fewest linking letters. Another language's question
-- is not cut at all: no line reaches qsl.
qsl as (
  select split_part(line, ' ', 1) as word, split_part(line, ' ', 2) as head, split_part(line, ' ', 3) as tail
  from qc cross join unnest(case when qc.cfg in ${sql.raw(closedCompoundConfigsSql())}
    then string_to_array(${COMPOUNDS}::text, E'\n') end) line
  where line <> ''
),
qcw as (
  select w.word, a.l[1] as lexeme
  from (select distinct word from qsl) w
    cross join qc cross join lateral (select tsvector_to_array(to_tsvector(qc.cfg::regconfig, w.word)) as l) a
  where cardinality(a.l) = 1 and not ${heldSql(o, sql`a.l[1]`)}
),
qs as (
  select distinct on (w.word) w.lexeme, h.l[1] as head, t.l[1] as tail
  from qsl s join qcw w on w.word = s.word cross join qc
    cross join lateral (select tsvector_to_array(to_tsvector(qc.cfg::regconfig, s.head)) as l) h
    cross join lateral (select tsvector_to_array(to_tsvector(qc.cfg::regconfig, s.tail)) as l) t
    cross join lateral (select ${dfSql(o, sql`h.l[1]`)} as hd, ${dfSql(o, sql`t.l[1]`)} as td) f
  where cardinality(h.l) = 1 and cardinality(t.l) = 1 and f.hd > 0 and f.td > 0
  order by w.word, f.hd * f.td desc, char_length(s.head) + char_length(s.tail) desc
),
qp as (select head as lexeme from qs union select tail from qs),
-- The terms only function words give, in a configuration with no stop list (stop-words.ts): of
-- the words from its list, those the rest of the text does not give too.
qf as (
  select w.lexeme from qc, unnest(to_tsvector(qc.cfg::regconfig, coalesce(${STOPS}::json -> qc.cfg ->> 0, ''))) w
  where not qc.cut
  except
  select k.lexeme from qc, unnest(to_tsvector(qc.cfg::regconfig, coalesce(${STOPS}::json -> qc.cfg ->> 1, ''))) k
),
ql as (
  select u.lexeme, u.ctx, u.acronym,
    u.acronym or u.part or u.lexeme in (select w.lexeme from qc, unnest(to_tsvector(qc.cfg::regconfig, ${read(WORDS, WORDS_CUT)} || ' ' || ${read(CTX_WORDS, CTX_WORDS_CUT)})) w) as word,
    u.lexeme in (select w.lexeme from qc, unnest(to_tsvector(qc.cfg::regconfig, ${sql.raw(questionWordsCaseSql("qc.cfg"))})) w)
      or u.lexeme in (select lexeme from qf) as framing,
    u.lexeme in (select w.lexeme from qc, unnest(to_tsvector(qc.cfg::regconfig, ${LOOSE}::text)) w) as loose
  from (
    select qx.*, false as acronym, false as part from qx
    union all
    select qa.lexeme, false, true, false from qa
    union all
    select qp.lexeme, false, false, true from qp
      where qp.lexeme not in (select lexeme from qx) and qp.lexeme not in (select lexeme from qa)
    union all
    select distinct y.lexeme, true, false, false from qc, unnest(to_tsvector(qc.cfg::regconfig, ${read(CTX, CTX_CUT)})) y
      where y.lexeme not in (select lexeme from qx) and y.lexeme not in (select lexeme from qa)
        and y.lexeme not in (select lexeme from qp)
  ) u
  order by u.ctx, word desc, char_length(u.lexeme) > 1 desc, u.lexeme limit ${num(MAX_TERMS)}
),
qt as (
  select ql.lexeme, ql.word, ql.framing, ql.ctx, ql.loose, ql.lexeme in (select lexeme from qs) as split, t.df, t.postings, i.idf * f.w as idf,
    case when ql.framing or ql.acronym or char_length(ql.lexeme) = 1 or not ql.word then 0 else i.idf * f.w end as cw
  from ql cross join st
    cross join lateral (select coalesce(${df}, 0)::int as df, coalesce(sum(g.df), 0)::int as postings
      from knowledge_base_terms g where g.lexeme = ql.lexeme) t
    cross join lateral (select ln(1 + (st.n - t.df + 0.5) / (t.df + 0.5)) as idf) i
    cross join lateral (select (case when not ql.ctx then 1 when ql.word then ${num(o.contextWeight)} else 0 end)
      * (case when ql.word or ql.loose then 1 when char_length(ql.lexeme) = 1 then ${num(o.charWeight)} else ${num(o.pairWeight)} end) as w) f
)`;
}

/**
 * Whether an unseen CJK word of three characters or more is made of pairs the knowledge base
 * holds (CJK text is indexed by its character pairs too, cjk.ts): then it is no word the
 * knowledge base lacks but its words in another form — a Korean verb with an ending the stemmer
 * does not know (나타나고, 만들어서), a compound the dictionary cut differently — and does not weigh
 * against coverage. A word of the question's subject the documents never mention has pairs
 * they never hold.
 */
export function knownPairs(lexeme: string, o: Shape): SQL {
  const w = sql.raw(lexeme);
  return sql`(char_length(${w}) > 2 and ${w} ~ '^[⺀-鿿가-힣豈-﫿]+$' and not exists (
    select 1 from generate_series(1, char_length(${w}) - 1) i
    where not ${heldSql(o, sql`substr(${w}, i, 2)`)}))`;
}

/** The question's terms alone (POST …/search shows them: where each comes from, its weight). */
export function termsSql(o: Shape): SQL {
  return sql`
${termsCtes(o)}
select lexeme, ctx, df, cw from qt order by ctx, cw desc, lexeme`;
}

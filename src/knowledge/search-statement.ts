/**
 * The search statement: BM25F computed in one SQL statement, so PGlite and PostgreSQL rank
 * alike. Their stemmers are their own: PostgreSQL 15 stems a few English words unlike PGlite's
 * PostgreSQL 18 ("added" to `ad`, not `add`), and such a word scores differently there.
 *
 * - Terms: the question through `to_tsvector(<language's configuration>, …)` after the same CJK
 *   segmentation as ingest (language.ts, cjk.ts) — the same parser, stemmer and stop words as
 *   the index. Stop words drop out, and the rest score what their inverse document frequency
 *   says.
 * - Fields: every passage's tsvector holds the document title (weight A), the passage heading
 *   (B) and the body (C); a term's frequency counts each occurrence by its field's weight,
 *   read from the candidates' tsvectors at query time (their lexemes' weight labels). Storing
 *   per-field counts at ingest instead cost a third of every ingest; reading them
 *   here costs ~1 ms a search at 100k passages, for the ≤ maxCandidates passages scored.
 * - Statistics: per knowledge base, document frequencies per lexeme and the passages' count and
 *   total length (knowledge_base_terms / knowledge_base_stats, kept by triggers in the ingest's
 *   own transaction). A search of one knowledge base scores with its own, so another knowledge
 *   base's documents never move its scores, its coverage or whether it answers; a search of the
 *   whole store sums them.
 * - Candidates: only through the GIN index (knowledge_candidates): every posting of each
 *   selective query term (one in at most `probeMaxDf` passages; when all are commoner, the
 *   rarest alone), then the `maxCandidates` passages holding the most IDF of those terms are
 *   scored. Commoner terms still score; they just do not drag thousands of passages in, so
 *   the cost follows the selective terms' postings, not the corpus. The index holds every
 *   knowledge base's passages, so "selective" counts them all: a term of a small knowledge base
 *   that is common in the store is not read whole (that cost 5–8 times the search's time). So
 *   which of a knowledge base's passages are scored can follow the store, never their scores.
 * - Pages: a page scores its best passage plus a decaying share of its next two, so a page
 *   with several matching passages beats one stray passage of similar strength.
 * - Abstention: `coverage` is the share of the question's IDF mass a passage (and its page)
 *   contains. When no page reaches `minCoverage` and no passage `minPassageCoverage`, the
 *   question is not about this knowledge base and search returns nothing. In that mass:
 *   - a term the knowledge base has never seen weighs `unseenWeight` times the question's
 *     rarest known term (its own BM25 IDF would make "tell" veto "tell me about streaming
 *     replies"), scaled down in a small knowledge base (`unseenHalfWords`), which has seen
 *     little of its language;
 *   - what only frames the question or is an artefact of cutting it weighs nothing: the
 *     language's question words (French "comment", "pourquoi": QUESTION_WORDS; PostgreSQL's
 *     English stop list already drops "how" and "what"), single characters, CJK bigrams that
 *     are not words (seen or not: a long natural question's bigrams across word boundaries,
 *     "目从" in "项目从", are rare in documentation and would outweigh its subject), unseen
 *     hyphenated compounds (whose parts are terms of their own), unseen closed compounds searched
 *     as two terms the knowledge base holds (compounds.ts) and unseen CJK words whose every
 *     character pair the knowledge base holds (`knownPairs`). Bigrams still score (across
 *     words' boundaries at `pairWeight`; single CJK characters at `charWeight`).
 *   Off-topic questions share a common word or two with the documents and are about a word the
 *   documents lack ("recette de la ratatouille"); in-scope ones match most of their weight.
 */
import { type SQL, sql } from "drizzle-orm";
import { candidatesSql, knownPairs, num, type Shape, termsCtes } from "./search-terms.ts";

/**
 * The search statement's text for a shape of options (one round trip): the question and the
 * knowledge base are parameters (`searchValues`), the tuning numbers and the language are text.
 */
export function searchSql(o: Shape): SQL {
  // Coverage: of the message's own mass, or — when the context helps — of the mass of the
  // message and its context together, whichever is larger: a context never makes a
  // self-contained question less covered, and a follow-up too short to stand alone is covered
  // with the topic it continues.
  const coverage = (t: string) =>
    sql.raw(`greatest(coalesce(sum(${t}.cw) filter (where not ${t}.ctx) / (select m from qmass), 0),
      coalesce(sum(${t}.cw) / (select mc from qmass), 0))`);
  return sql`
${termsCtes(o)},
-- Candidates from the GIN index, never from a scan: the postings of each selective term
-- (in at most probeMaxDf passages; the rarest term alone when every one is common), then the
-- passages holding the most IDF of them — the coordination level, read from the index alone —
-- are the ones scored.
-- The question's IDF mass, the denominator of coverage: known terms by their IDF, unseen words
-- by unseenWeight times the known terms' highest (or mean) IDF (no known term: nothing covers
-- it). Unseen bigrams and hyphenated compounds (logged-in, whose parts are terms too) are
-- artefacts of cutting and weigh nothing.
qmass as (
  select nullif(coalesce(sum(q.cw) filter (where q.df > 0 and not q.ctx), 0) + u.in_msg * k.unit, 0) as m,
    nullif(coalesce(sum(q.cw) filter (where q.df > 0), 0) + (u.in_msg + u.in_ctx * ${num(o.contextWeight)}) * k.unit, 0) as mc
  from qt q
    cross join (select ${num(o.unseenWeight)} * (select seen from st)
      * coalesce(${sql.raw(o.unseenOf === "max" ? "max" : "avg")}(cw) filter (where df > 0 and cw > 0 and not ctx), 0) as unit from qt) k
    cross join (select count(*) filter (where not ctx) as in_msg, count(*) filter (where ctx) as in_ctx from qt
      where df = 0 and word and not framing and char_length(lexeme) > 1 and strpos(lexeme, '-') = 0
        and not split and not ${knownPairs("qt.lexeme", o)}) u
  group by u.in_msg, u.in_ctx, k.unit
),
quoted as (
  select lexeme, df, postings, idf, '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''' as lit from qt where df > 0
),
probe as (
  select * from quoted where postings <= ${num(o.probeMaxDf)}
  union all
  (select * from quoted where not exists (select 1 from quoted where postings <= ${num(o.probeMaxDf)}) order by postings, lexeme limit 1)
),
cand_ids as (
  -- A selective term brings all its postings (in this knowledge base: df of them); the common
  -- fallback term only as many as are scored.
  select k.id from probe p
    cross join lateral ${candidatesSql(o, sql`p.lit`, sql`case when p.postings <= ${num(o.probeMaxDf)} then p.df else ${num(o.maxCandidates)} end`)} as k(id)
  group by k.id order by sum(p.idf) desc, k.id limit ${num(o.maxCandidates)}
),
cand as materialized (
  select c.id, c.document_id, c.len, c.tsv
  from cand_ids k join chunks c on c.id = k.id
),
-- A query term's occurrences in a candidate, by field: the weight labels of its positions.
tf as (
  select c.id, c.document_id, c.len, qt.lexeme, qt.idf, qt.cw, qt.ctx,
    ${num(o.titleWeight)} * x.a + ${num(o.headingWeight)} * x.b + (x.n - x.a - x.b) as w
  from cand c cross join lateral unnest(c.tsv) u join qt on qt.lexeme = u.lexeme
    cross join lateral (select cardinality(array_positions(u.weights, 'A'))::float8 as a,
      cardinality(array_positions(u.weights, 'B'))::float8 as b, cardinality(u.weights)::float8 as n) x
),
scored as (
  select tf.id, tf.document_id,
    sum(tf.idf * tf.w * ${num(o.k1 + 1)} / (tf.w + ${num(o.k1)} * (1 - ${num(o.b)} + ${num(o.b)} * tf.len / st.avglen))) as score,
    ${coverage("tf")} as coverage
  from tf cross join st
  group by tf.id, tf.document_id
),
ranked as (
  select s.*, row_number() over (partition by s.document_id order by s.score desc, s.id) as nth from scored s
),
-- A page's evidence besides coverage: how many of the message's own known words it holds.
page_terms as (
  select document_id, ${coverage("x")} as coverage,
    count(*) filter (where not x.ctx and x.cw > 0) as terms,
    count(*) filter (where x.ctx and x.cw > 0) as ctx_terms
  from (select distinct document_id, lexeme, cw, ctx from tf) x group by document_id
),
pages as (
  select r.document_id, sum(r.score * power(${num(o.pageDecay)}, r.nth - 1)) as page_score, min(pt.coverage) as coverage,
    min(pt.terms) as terms, min(pt.ctx_terms) as ctx_terms
  from ranked r join page_terms pt on pt.document_id = r.document_id
  where r.nth <= 3 group by r.document_id
),
best as (
  select r.id, r.document_id, r.score, p.page_score, r.coverage, p.terms
  from ranked r join pages p on p.document_id = r.document_id
  where r.nth <= ${num(o.perPage)}
    and ((select max(coverage) from pages) >= ${num(o.minCoverage)}
      and (select max(coverage) from scored) >= ${num(o.minPassageCoverage)}
      -- A long question in a person's words holds words no documentation uses ("quickest",
      -- "enormous"): its coverage stays low, yet one page holds several of its rarer words.
      -- Several of them on one page are evidence of a topic: minTerms was chosen leaving one
      -- language out (eval/tune-abstention.ts), scaled as the unseen word's weight is (a small
      -- knowledge base's pages hold fewer of any question's words), and never below two: one
      -- shared word is no topic ("install" in a question about a washing machine). A follow-up's
      -- context words count too, with at least one of its own: "and a permanent redirect?" is
      -- about the conversation's page.
      or exists (select 1 from pages where terms >= 1
        and terms + ctx_terms >= greatest(2, ${num(o.minTerms)} * (select seen from st))))
  order by p.page_score desc, r.document_id, r.score desc, r.id
  limit ${num(o.limit)}
)
-- Only the returned passages' text is read.
select c.id, d.id as document_id, d.url, d.title, c.heading, c.content, t.score, t.page_score, t.coverage,
  t.terms
from best t join chunks c on c.id = t.id join documents d on d.id = t.document_id
order by t.page_score desc, t.document_id, t.score desc, t.id`;
}

/**
 * Texts read as search reads them: the lexemes of their words in spaced scripts under the
 * knowledge base's text-search configuration (its language's stemmer and stop words), so the
 * built-in agent chooses what to quote by the words search ranked with: "paginated" meets
 * "pagination", and "does" or "the" weigh nothing in any language PostgreSQL has a stop list
 * for. CJK runs are left out: the caller cuts them itself (the index's pairs and characters are
 * for finding pages, not for telling one sentence from the next).
 */
import { type Query, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "../db/client.ts";
import { builtRows } from "../db/rows.ts";
import { CJK_RUN } from "./cjk.ts";
import { searchableText, storableText } from "./language.ts";
import { SEARCH_DEFAULTS } from "./search-options.ts";
import { configCte } from "./search-terms.ts";
import { cutWords } from "./unstemmed.ts";

/** Longest text read (characters): a quotable piece is a sentence, a list or a code block. */
const MAX_TEXT_CHARS = 4_000;

let statement: Query | undefined;
const texts = sql.placeholder("texts");
// The same texts cut to prefixes, read instead in a language with no stemmer (unstemmed.ts).
const textsCut = sql.placeholder("textsCut");

/** The statement, built once (its text never varies): the configuration as search chooses it. */
function lexemesStatement(): Query {
  statement ??= new PgDialect().sqlToQuery(sql`
with ${configCte({ ...SEARCH_DEFAULTS, kbId: "" })}
select t.ord, coalesce((select json_agg(x.lexeme order by x.lexeme)
  from unnest(to_tsvector(qc.cfg::regconfig, case when qc.cut then tc.text else t.text end)) x
  where char_length(x.lexeme) > 1), '[]'::json) as lexemes
from qc cross join json_array_elements_text(${texts}::json) with ordinality t(text, ord)
  join json_array_elements_text(${textsCut}::json) with ordinality tc(text, ord) on tc.ord = t.ord
order by t.ord`);
  return statement;
}

/**
 * A text as the statement can read it: CJK runs out, and neither NUL nor a lone surrogate (a
 * question may hold them; PostgreSQL's text and JSON refuse them, failing the statement).
 */
const readable = (text: string) => storableText(searchableText(text.slice(0, MAX_TEXT_CHARS).replace(CJK_RUN, " ")));

/** Each text's lexemes (distinct, CJK runs left out), in the knowledge base's configuration; one round trip. */
export async function lexemesOf(db: Db, kbId: string, list: string[]): Promise<string[][]> {
  if (list.length === 0) return [];
  const read = list.map(readable);
  const rows = await builtRows<{ ord: number; lexemes: string[] | string }>(db, lexemesStatement(), {
    kb: kbId,
    texts: JSON.stringify(read),
    textsCut: JSON.stringify(read.map(cutWords)),
  });
  // JSON, which both drivers parse (or hand over as text).
  return rows.map((r) => (typeof r.lexemes === "string" ? JSON.parse(r.lexemes) : r.lexemes));
}

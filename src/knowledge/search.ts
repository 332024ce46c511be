/**
 * Ranked full-text search over the knowledge base's passages (PostgreSQL `english`
 * configuration: stemming and stop words), shared by PGlite and PostgreSQL.
 */
import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { chunks, documents } from "../db/schema.ts";

/** A passage found by search, with the document it comes from. */
export interface SearchHit {
  url: string;
  title: string;
  heading: string;
  content: string;
  rank: number;
  /** How many of the query's terms the passage contains. */
  matched: number;
}

/** Words of a question as tsquery operands: letters and digits only, so nothing can inject syntax. */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1))].slice(0, 32);
}

// Words that frame a question rather than name its subject ("tell me about…", "how does … work").
// PostgreSQL's stop words ("what", "the", "about") are found by the database itself.
const FILLER = new Set(
  "tell explain describe show give know want need please like help thing things something anything way ways question happen happens work works use using used can could would should".split(" "),
);

const MIN_PASSAGES_FOR_IDF = 50;

/**
 * The terms worth searching for: no stop words or filler, and none that occur in so many
 * passages that they say nothing about this knowledge base ("elysia" in Elysia's docs):
 * PostgreSQL's ranking has no inverse document frequency of its own. Terms the knowledge base
 * has never seen are kept: they are part of what the question asks about.
 */
export async function searchTerms(db: Db, words: string[], maxShare = 0.2): Promise<string[]> {
  const candidates = words.filter((w) => !FILLER.has(w));
  const terms = candidates.length ? candidates : words;
  if (terms.length === 0) return [];
  // One round trip; scalar subqueries so each count is a GIN bitmap lookup, not a scan.
  const q = (t: string) => sql`to_tsquery('english', ${t})`;
  const [row] = (await db
    .select({
      total: sql<number>`(select count(*) from ${chunks})`.mapWith(Number),
      ...Object.fromEntries(
        terms.flatMap((t, i) => [
          [`n${i}`, sql<number>`numnode(${q(t)})`.mapWith(Number)],
          [`d${i}`, sql<number>`(select count(*) from ${chunks} where ${chunks.tsv} @@ ${q(t)})`.mapWith(Number)],
        ]),
      ),
    })
    .from(sql`(select 1) as one`)) as Record<string, number>[];
  if (!row) return terms;
  const stats = terms.map((t, i) => ({ t, lexeme: row[`n${i}`]! > 0, df: row[`d${i}`] ?? 0 })).filter((x) => x.lexeme);
  // In a handful of passages every word is "common": the filter only means something at scale.
  if (row.total! < MIN_PASSAGES_FOR_IDF) return stats.map((x) => x.t);
  const kept = stats.filter((x) => x.df / row.total! <= maxShare);
  if (kept.length > 0) return kept.map((x) => x.t);
  // Every term is common: keep the rarest one that matches at all.
  const rarest = stats.filter((x) => x.df > 0).sort((a, b) => a.df - b.df)[0];
  return rarest ? [rarest.t] : [];
}

/**
 * How many of `n` terms a passage must contain to be about the question: one of one or two,
 * then half. A passage that shares one stray word with a longer question ("today" in "what is
 * the weather in Paris today?") is not an answer to it.
 */
export const termsNeeded = (n: number) => (n <= 2 ? 1 : Math.ceil(n / 2));

/**
 * Passages matching any of the terms, those containing the most terms first, then by
 * ts_rank_cd, which rewards terms close together (heading matches weigh more); normalisation 1
 * divides by the log of the passage length so long lists do not win by sheer size.
 */
export async function searchPassages(db: Db, terms: string[], limit = 6): Promise<SearchHit[]> {
  if (terms.length === 0) return [];
  const any = sql`to_tsquery('english', ${terms.join(" | ")})`;
  const rank = sql<number>`ts_rank_cd(${chunks.tsv}, ${any}, 1)`;
  const matched = sql<number>`(${sql.join(
    terms.map((t) => sql`(${chunks.tsv} @@ to_tsquery('english', ${t}))::int`),
    sql` + `,
  )})`.mapWith(Number);
  return db
    .select({ url: documents.url, title: documents.title, heading: chunks.heading, content: chunks.content, rank, matched })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.documentId))
    .where(sql`${chunks.tsv} @@ ${any}`)
    .orderBy(desc(matched), desc(rank), chunks.id)
    .limit(limit);
}

/**
 * What passages contribute to the full-text index, in one place (search reads questions through
 * the same `searchableText`): each passage's tsvector — the document title as field A, the
 * passage heading as B, the body as C, each cut by its document's language — its term
 * frequencies, and its length in words for BM25.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { newId } from "../primitives.ts";
import type { Passage } from "./chunk.ts";
import { indexedTextAndLength, LANGUAGE_CONFIGS, type Language } from "./language.ts";
import type { KnowledgeDoc } from "./parse.ts";

type Prepared = { doc: KnowledgeDoc; passages: Passage[] };

type Lengths = { len: number; words: number };

/**
 * A passage's fields B and C as to_tsvector reads them, and its lengths (indexedTextAndLength):
 * the title's (counted once per document), its heading's and its body's.
 */
function indexedFields(title: string, titled: Lengths, heading: string, content: string, language: Language) {
  // The title is every passage's field A; a heading that only repeats it adds nothing.
  const b = indexedTextAndLength(heading === title ? "" : heading, language);
  const body = indexedTextAndLength(content, language);
  return {
    b: b.text,
    body: body.text,
    len: titled.len + b.len + body.len,
    words: titled.words + b.words + body.words,
  };
}

/**
 * One statement for every passage of the batch, its rows as one JSON parameter: each title is
 * tokenised once per document, each passage's tsvector once (search reads the per-field term
 * counts from it, search.ts). Each document's text is cut by its own language's
 * configuration (`cfg`), CJK runs segmented into words first (searchableText, as questions are).
 * The statement-level triggers then update the statistics once for the whole batch.
 */
export async function insertPassages(
  tx: Pick<Db, "execute">,
  kbId: string,
  batch: Prepared[],
  ids: Map<string, string>,
  languages: Map<string, Language>,
) {
  const titles = batch.map(({ doc }) => indexedTextAndLength(doc.title, languages.get(doc.url)!));
  const docs = batch.map(({ doc }, i) => ({
    i,
    document_id: ids.get(doc.url)!,
    cfg: LANGUAGE_CONFIGS[languages.get(doc.url)!],
    title: titles[i]!.text,
  }));
  const passages = batch.flatMap(({ doc, passages }, i) => {
    const titleWords = titles[i]!;
    return passages.map((p, ord) => ({
      id: newId("chunk"),
      i,
      ord,
      heading: p.heading,
      content: p.content,
      ...indexedFields(doc.title, titleWords, p.heading, p.content, languages.get(doc.url)!),
    }));
  });
  if (!passages.length) return;
  await tx.execute(sql`
    with d as materialized (
      select d.i, d.document_id, d.cfg::regconfig as cfg, setweight(to_tsvector(d.cfg::regconfig, d.title), 'A') as tv
      from json_to_recordset(${JSON.stringify(docs)}::json) as d(i integer, document_id text, cfg text, title text)
    ), p as materialized (
      select p.id, d.document_id, p.ord, p.heading, p.content, p.len, p.words,
        d.tv || setweight(to_tsvector(d.cfg, p.b), 'B') || setweight(to_tsvector(d.cfg, p.body), 'C') as tsv
      from json_to_recordset(${JSON.stringify(passages)}::json)
        as p(id text, i integer, ord integer, heading text, b text, body text, content text, len integer, words integer)
      join d on d.i = p.i
    )
    insert into chunks (id, document_id, kb_id, ord, heading, content, tsv, len, words)
    select p.id, p.document_id, ${kbId}, p.ord, p.heading, p.content, p.tsv, p.len, p.words
    from p`);
}

/** A stored passage with its document's title and language: what `reindexPassages` rebuilds from. */
export interface StoredPassage {
  id: string;
  documentId: string;
  title: string;
  heading: string;
  content: string;
  language: Language;
}

/**
 * Rebuilds the tsvectors of stored passages of knowledge base `kbId` with their documents'
 * (new) language: the same fields and cuts as insertPassages, one statement for the batch. The
 * statement trigger moves the statistics. `len` and `words` are rebuilt too: they do not depend
 * on the language, but they do on how CJK text is cut (reindex.ts re-cuts passages of an older
 * cut with this function).
 */
export async function reindexPassages(tx: Pick<Db, "execute">, kbId: string, rows: StoredPassage[]) {
  if (!rows.length) return;
  const titled = [...new Map(rows.map((r) => [r.documentId, r])).values()].map((r) => ({
    row: r,
    title: indexedTextAndLength(r.title, r.language),
  }));
  const docs = titled.map(({ row, title }) => ({
    document_id: row.documentId,
    cfg: LANGUAGE_CONFIGS[row.language],
    title: title.text,
  }));
  const titleWords = new Map(titled.map(({ row, title }) => [row.documentId, title]));
  const passages = rows.map((r) => {
    const fields = indexedFields(r.title, titleWords.get(r.documentId)!, r.heading, r.content, r.language);
    return { id: r.id, document_id: r.documentId, ...fields };
  });
  await tx.execute(sql`
    with d as materialized (
      select d.document_id, d.cfg::regconfig as cfg, setweight(to_tsvector(d.cfg::regconfig, d.title), 'A') as tv
      from json_to_recordset(${JSON.stringify(docs)}::json) as d(document_id text, cfg text, title text)
    ), p as materialized (
      select p.id, p.document_id, p.len, p.words,
        d.tv || setweight(to_tsvector(d.cfg, p.b), 'B') || setweight(to_tsvector(d.cfg, p.body), 'C') as tsv
      from json_to_recordset(${JSON.stringify(passages)}::json) as p(id text, document_id text, b text, body text, len integer, words integer)
      join d on d.document_id = p.document_id
    )
    update chunks c set tsv = p.tsv, len = p.len, words = p.words from p
    where c.id = p.id and c.document_id = p.document_id and c.kb_id = ${kbId}`);
}

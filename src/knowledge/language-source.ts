/**
 * Where a document's language comes from, and what changing a knowledge base's language does.
 *
 * The rule, at ingest and after every change of the setting: a document's own `language` wins
 * (`explicit`), else its knowledge base's (`knowledge_base`), else the one detected from its
 * text (`detected`, language.ts). `documents.language_source` records which, so that a change
 * of the knowledge base's language (PATCH) can bring every document that did not bring its own
 * to what storing it again would give: a new language is taken by the inherited and the
 * detected ones; null makes the inherited ones detected. Their passages are re-indexed with the
 * new text-search configuration in the PATCH's own transaction, so a search after the 200 ranks
 * with it, and one before it with the old one: never a mix. The knowledge base's row is locked
 * first, and every ingest batch takes the same lock first (service.ts), so a batch stores its
 * documents under the setting it commits with.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { detectLanguage, type Language } from "./language.ts";
import type { KnowledgeDoc } from "./parse.ts";
import { reindexPassages, type StoredPassage } from "./passage-index.ts";

export const LANGUAGE_SOURCES = ["explicit", "knowledge_base", "detected"] as const;
export type LanguageSource = (typeof LANGUAGE_SOURCES)[number];

/** The language a document is stored under in a knowledge base whose setting is `kbLanguage`. */
export function documentLanguage(
  doc: Pick<KnowledgeDoc, "title" | "content" | "language">,
  kbLanguage: string | null,
): { language: Language; source: LanguageSource } {
  if (doc.language) return { language: doc.language, source: "explicit" };
  if (kbLanguage) return { language: kbLanguage as Language, source: "knowledge_base" };
  return { language: detectLanguage(`${doc.title}\n${doc.content}`), source: "detected" };
}

/** The transaction handle `db.transaction` gives. */
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

// Documents detected per statement, and passages re-indexed per statement (as many as an ingest
// batch inserts): each is one round trip with its rows as one JSON parameter.
const DETECT_BATCH = 400;
const REINDEX_DOCS = 400;
const REINDEX_PASSAGES = 2_000;
// What detection reads of a document (language.ts reads at most this much of its start).
const DETECTED_CHARS = 20_000;

const rowsOf = <T>(r: unknown): T[] => (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];

/**
 * Applies knowledge base `kbId`'s new language setting to its documents (inside the
 * transaction that changed it, with the knowledge base's row locked): returns how many changed
 * language, whose passages were re-indexed. Documents with their own language are not touched.
 */
export async function applyKnowledgeBaseLanguage(tx: Tx, kbId: string, language: Language | null): Promise<number> {
  const changed = language === null ? await detectInherited(tx, kbId) : await inherit(tx, kbId, language);
  for (let i = 0; i < changed.length; i += REINDEX_DOCS) await reindex(tx, kbId, changed.slice(i, i + REINDEX_DOCS));
  return changed.length;
}

/** A language is set: the inherited and the detected documents take it, in one statement. */
async function inherit(tx: Tx, kbId: string, language: Language): Promise<string[]> {
  const rows = await tx.execute(sql`
    with before as (
      select id, language from documents
      where kb_id = ${kbId} and language_source in ('knowledge_base', 'detected')
        and (language <> ${language} or language_source <> 'knowledge_base')
      for update
    ), after as (
      update documents d set language = ${language}, language_source = 'knowledge_base'
      from before b where d.id = b.id and d.kb_id = ${kbId}
      returning d.id, b.language as was
    )
    select id from after where was <> ${language}`);
  return rowsOf<{ id: string }>(rows).map((r) => r.id);
}

/**
 * The setting is removed: each inherited document is detected from its text (language.ts, in
 * batches: detection runs here, not in SQL), as ingest would detect it.
 */
async function detectInherited(tx: Tx, kbId: string): Promise<string[]> {
  const changed: string[] = [];
  for (;;) {
    // Each batch leaves `knowledge_base`, so the next one is the next DETECT_BATCH still in it.
    const docs = rowsOf<{ id: string; title: string; head: string; language: string }>(
      await tx.execute(sql`
        select id, title, left(content, ${DETECTED_CHARS}) as head, language from documents
        where kb_id = ${kbId} and language_source = 'knowledge_base'
        order by id limit ${DETECT_BATCH}`),
    );
    if (!docs.length) return changed;
    const detected = docs.map((d) => ({
      id: d.id,
      language: detectLanguage(`${d.title}\n${d.head}`),
      was: d.language,
    }));
    await tx.execute(sql`
      update documents d set language = x.language, language_source = 'detected'
      from json_to_recordset(${JSON.stringify(detected)}::json) as x(id text, language text)
      where d.id = x.id and d.kb_id = ${kbId} and d.language_source = 'knowledge_base'`);
    for (const d of detected) if (d.language !== d.was) changed.push(d.id);
  }
}

/**
 * Detects again the documents of knowledge base `kbId` whose language was detected, as ingest
 * would now detect them (a release that detects more languages, or leaves code out), and
 * re-indexes those whose language changed: inside a transaction with the knowledge base's row
 * locked, like a change of its setting. How many changed. Only the earlier detection's two
 * fallbacks are asked again (`english` for ASCII text, `simple` for the rest: where it knew no
 * better): stores from before languages' sources were recorded count some documents that
 * brought their own language as detected (migration 0020), and those keep it.
 */
export async function redetectDocuments(tx: Tx, kbId: string): Promise<number> {
  const changed: string[] = [];
  for (let after = ""; ; ) {
    const docs = rowsOf<{ id: string; title: string; head: string; language: string }>(
      await tx.execute(sql`
        select id, title, left(content, ${DETECTED_CHARS}) as head, language from documents
        where kb_id = ${kbId} and language_source = 'detected' and id > ${after}
          and language in ('english', 'simple')
        order by id limit ${DETECT_BATCH}`),
    );
    if (!docs.length) break;
    after = docs.at(-1)!.id;
    const moved = docs
      .map((d) => ({ id: d.id, language: detectLanguage(`${d.title}\n${d.head}`), was: d.language }))
      .filter((d) => d.language !== d.was);
    if (moved.length)
      await tx.execute(sql`
        update documents d set language = x.language
        from json_to_recordset(${JSON.stringify(moved)}::json) as x(id text, language text)
        where d.id = x.id and d.kb_id = ${kbId} and d.language_source = 'detected'`);
    changed.push(...moved.map((d) => d.id));
  }
  for (let i = 0; i < changed.length; i += REINDEX_DOCS) await reindex(tx, kbId, changed.slice(i, i + REINDEX_DOCS));
  return changed.length;
}

/** Re-indexes the passages of documents `ids` (their language already changed), in pages. */
async function reindex(tx: Tx, kbId: string, ids: string[]): Promise<void> {
  let after = { documentId: "", ord: -1 };
  for (;;) {
    const page = rowsOf<{ id: string; document_id: string; ord: number } & Omit<StoredPassage, "id" | "documentId">>(
      await tx.execute(sql`
        select c.id, c.document_id, c.ord, c.heading, c.content, d.title, d.language
        from chunks c join documents d on d.id = c.document_id
        where d.kb_id = ${kbId} and c.document_id in (select value from json_array_elements_text(${JSON.stringify(ids)}::json))
          and (c.document_id, c.ord) > (${after.documentId}, ${after.ord}::int)
        order by c.document_id, c.ord limit ${REINDEX_PASSAGES}`),
    );
    if (!page.length) return;
    await reindexPassages(
      tx,
      kbId,
      page.map((p) => ({ ...p, documentId: p.document_id })),
    );
    const last = page.at(-1)!;
    after = { documentId: last.document_id, ord: Number(last.ord) };
  }
}

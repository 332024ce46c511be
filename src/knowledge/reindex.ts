/**
 * Re-cutting stored passages after the way text written without spaces is cut into terms changed
 * (cjk.ts: words, bigrams and characters, function words dropped, Japanese endings cut off;
 * sea-words.ts: Thai, Lao, Khmer and Burmese words, once indexed as whole phrases). Questions
 * are cut the new way at once, so passages indexed the old way
 * would match them less well until re-cut. A SQL migration cannot do it (the cutting is
 * `Intl.Segmenter`'s), so the server does it once per store at start, recorded in
 * instance_secrets.
 *
 * In place: each passage holding CJK text gets its tsvector and length rebuilt from its stored
 * text (the statistics triggers follow, in the same transaction). Ids stay,
 * so embeddings, citations and feedback keep pointing at them. Idempotent: instances starting
 * together may both do it and reach the same rows.
 */
import { sql } from "drizzle-orm";
import type { Db, Store } from "../db/client.ts";
import { claimMark, hasMark } from "../db/instance-values.ts";
import { rowsOf } from "../db/rows.ts";
import { CJK_RUN } from "./cjk.ts";
import { isLanguage } from "./language.ts";
import { redetectDocuments } from "./language-source.ts";
import { reindexPassages } from "./passage-index.ts";
import { SEA_RUN } from "./sea-words.ts";

/** The mark a store gets once its CJK (and Thai…) passages are cut the current way. */
export const CJK_TERMS_MARK = "cjk_terms_v5";
const PAGE = 500;
const UNSPACED = new RegExp(`${CJK_RUN.source}|${SEA_RUN.source}`, "u");

type Row = {
  id: string;
  document_id: string;
  kb_id: string;
  title: string;
  heading: string;
  content: string;
  language: string;
};

/** Re-cuts the store's CJK passages unless already done; how many were re-cut. */
export async function recutCjkPassagesOnce(db: Db): Promise<number> {
  if (await hasMark(db, CJK_TERMS_MARK)) return 0;
  let recut = 0;
  let after = "";
  for (;;) {
    // Only passages that may hold such a character are read: a superset of cjk.ts's scripts (CJK
    // radicals and symbols through the unified ideographs, compatibility ideographs, Hangul
    // syllables and jamo, half-width katakana, the supplementary ideograph planes) and of
    // sea-words.ts's (Thai and Lao, Myanmar, Khmer and their extensions, Myanmar Extended-C); UNSPACED decides.
    const rows = await rowsOf<Row>(
      db,
      sql`
        select c.id, c.document_id, c.kb_id, d.title, c.heading, c.content, d.language
        from chunks c join documents d on d.id = c.document_id
        where c.id > ${after} and (d.title || c.heading || c.content) ~ '[𑛐-𑛿฀-໿က-႟ក-៿᧠-᧿ꧠ-꧿ꩠ-ꩿᄀ-ᇿ⺀-鿿ꥠ-꥿가-퟿豈-﫿｡-ￜ𖿠-𖿿𚿰-𛅿🈀𠀀-𳑿]'
        order by c.id limit ${PAGE}`,
    );
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    const byKb = new Map<string, Row[]>();
    for (const r of rows)
      if (UNSPACED.test(`${r.title}${r.heading}${r.content}`)) byKb.set(r.kb_id, [...(byKb.get(r.kb_id) ?? []), r]);
    for (const [kbId, list] of byKb) {
      await reindexPassages(
        db,
        kbId,
        list.map((r) => ({
          id: r.id,
          documentId: r.document_id,
          title: r.title,
          heading: r.heading,
          content: r.content,
          language: isLanguage(r.language) ? r.language : "english",
        })),
      );
      recut += list.length;
    }
  }
  await claimMark(db, CJK_TERMS_MARK);
  return recut;
}

/** The mark a store gets once its detected documents are detected the current way. */
export const DETECTION_MARK = "language_detection_v4";

/**
 * Detects again, once per store, every document whose language was detected (language-source.ts),
 * a knowledge base at a time with its row locked; how many changed language.
 */
export async function redetectLanguagesOnce(db: Db): Promise<number> {
  if (await hasMark(db, DETECTION_MARK)) return 0;
  let changed = 0;
  for (const { id } of await rowsOf<{ id: string }>(db, sql`select id from knowledge_bases order by id`))
    changed += await db.transaction(async (tx) => {
      const locked = await rowsOf(tx as unknown as Db, sql`select id from knowledge_bases where id = ${id} for update`);
      return locked.length ? redetectDocuments(tx, id) : 0;
    });
  await claimMark(db, DETECTION_MARK);
  return changed;
}

const REINDEX_LOCK = 0x50524958; // "PRIX"

/**
 * What a new release's way of indexing asks of a store once: languages detected again, passages
 * re-cut. Under a lock: instances starting together do it once, one after the other.
 */
export function reindexOnce(store: Pick<Store, "withLock">): Promise<{ redetected: number; recut: number }> {
  return store.withLock(REINDEX_LOCK, async (db) => {
    const redetected = await redetectLanguagesOnce(db);
    return { redetected, recut: await recutCjkPassagesOnce(db) };
  });
}

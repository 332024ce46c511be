/**
 * The words the default agent (retrieval.ts) weighs sentences by: as search reads them when a
 * knowledge base is searched (its stemmer and stop words: knowledge/lexemes.ts), CJK runs and
 * everything else by `Intl.Segmenter`.
 */
import type { Db } from "../db/client.ts";
import { CJK_RUN, lexemesOf, type SearchHit } from "../knowledge/index.ts";
import { piecesOf } from "./pieces.ts";

const words = new Intl.Segmenter(undefined, { granularity: "word" });
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ーｰ]+$/u;

/**
 * The words of `text`, lower-cased, a crude prefix stem for alphabetic scripts: how CJK runs are
 * read, and every text when no knowledge base is searched.
 */
export const termsOf = (text: string): string[] =>
  [...words.segment(text.toLowerCase())]
    // What is all hiragana is Japanese grammar (で, ます, った), as search reads it (cjk.ts): a
    // sentence sharing the question's particles is no closer to answering it.
    .filter((w) => w.isWordLike && !HIRAGANA_ONLY.test(w.segment))
    // Latin and other cased scripts: a 5-character prefix joins inflected forms; CJK words stay whole.
    .map((w) => (/^[\p{Lu}\p{Ll}\p{N}_-]+$/u.test(w.segment) ? w.segment.slice(0, 5) : w.segment));

/**
 * The terms of every text `extract` reads (the message, its context, each piece and heading) as
 * search reads them: one round trip (knowledge/lexemes.ts).
 */
export async function termsAsSearched(
  db: Db,
  kbId: string,
  message: string,
  context: string,
  hits: SearchHit[],
): Promise<(text: string) => string[]> {
  const texts = [
    ...new Set([message, context, ...hits.flatMap((h) => [h.heading, ...piecesOf(h.content).map((p) => p.text)])]),
  ];
  const lexemes = await lexemesOf(db, kbId, texts);
  const byText = new Map(texts.map((t, i) => [t, lexemes[i] ?? []]));
  // CJK runs: the segmenter's words, single characters included (lexemesOf leaves CJK out).
  const cjk = (text: string) => termsOf((text.match(CJK_RUN) ?? []).join(" "));
  return (text) => [...(byText.get(text) ?? termsOf(text)), ...cjk(text)];
}

/**
 * Function words of the languages whose text-search configuration has none: PostgreSQL ships
 * stop lists for English, French, German, Russian… but not for Arabic, Greek, Indonesian or
 * Romanian, and `simple` (every language it has no configuration for: Vietnamese, Hebrew, Hindi,
 * Persian, Bengali) keeps every word. There a question's "yang", "di", "của", "không" were words
 * it shared with nearly every page, enough for the abstention's second rule (a page holding
 * several of the question's words) to answer an off-topic question. Search reads a term that
 * only these words give as it reads a question word ("how", "comment"): it scores, and weighs
 * nothing in coverage or in that count (search-terms.ts, "framing"). Words, not stems, are
 * compared, as PostgreSQL's own stop lists are: a stemmer may give a function word the stem of
 * a content word ("التي" and "الت…"), which then still counts when the question writes it.
 *
 * The lists are the `stopword` package's (MIT; its sources are in its 3rd-party.txt), one word
 * each: an entry of several words ("có thể") would make each of its words a function word.
 * CJK languages, also `simple`, drop theirs where their runs are cut (cjk.ts); Polish, Czech,
 * Slovak and Ukrainian where their words are cut (unstemmed.ts).
 */
import { ara, ben, ell, fas, heb, hin, ind, ron, vie } from "stopword";

const words = (...lists: string[][]) =>
  new Set(
    lists
      .flat()
      .filter((w) => /^[\p{L}\p{M}]+$/u.test(w))
      .map((w) => w.toLowerCase()),
  );

/** By configuration name. */
const STOP_LISTS = new Map<string, Set<string>>([
  ["arabic", words(ara)],
  ["greek", words(ell)],
  ["indonesian", words(ind)],
  ["romanian", words(ron)],
  ["simple", words(vie, heb, hin, fas, ben)],
]);

const WORD = /[\p{L}\p{M}]+/gu;

/**
 * For each configuration with a stop list (or `config` alone, when known) whose words `text`
 * holds: those words, and the text without them (search-terms.ts reads each under the
 * configuration: a term of the first and not of the second comes from function words only).
 */
export function stopWordsOf(text: string, config?: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const [name, list] of STOP_LISTS) {
    if (config !== undefined && name !== config) continue;
    const removed: string[] = [];
    const kept = text.replace(WORD, (w) => (list.has(w.toLowerCase()) ? (removed.push(w), " ") : w));
    if (removed.length > 0) out[name] = [removed.join(" "), kept];
  }
  return out;
}

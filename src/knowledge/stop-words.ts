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
 * each: an entry of several words ("có thể") would make each of its words a function word. Some
 * lists hold words a question may be about (Indonesian "jumlah", "bulan": amount, month); those
 * still score. `simple` is also the configuration of Chinese, Japanese and Korean, whose runs
 * drop their own function words where they are cut (cjk.ts); the Latin words of the lists that
 * reach them ("do", "so") are function words in English too. Polish, Czech, Slovak and
 * Ukrainian drop theirs where their words are cut (unstemmed.ts), and skip these.
 */
import { ara, ben, ell, fas, heb, hin, ind, ron, vie } from "stopword";

/** How a word is compared with a list, both written the same way. */
type Fold = (word: string) => string;
const lower: Fold = (w) => w.toLowerCase();
// Greek lists are written without accents and with σ for the final ς ("πωσ" for "πώς").
const greek: Fold = (w) => w.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replaceAll("ς", "σ");
// Romanian is written with ș and ț (comma below), its lists often with ş and ţ (cedilla).
const romanian: Fold = (w) => w.toLowerCase().replaceAll("ş", "ș").replaceAll("ţ", "ț");

const listOf = (fold: Fold, ...lists: string[][]) => ({
  fold,
  words: new Set(
    lists
      .flat()
      .filter((w) => /^[\p{L}\p{M}]+$/u.test(w))
      .map(fold),
  ),
});

/** By configuration name: the configurations with no stop list of their own. */
const STOP_LISTS = new Map([
  ["arabic", listOf(lower, ara)],
  ["greek", listOf(greek, ell)],
  ["indonesian", listOf(lower, ind)],
  ["romanian", listOf(romanian, ron)],
  ["simple", listOf(lower, vie, heb, hin, fas, ben)],
]);

const WORD = /[\p{L}\p{M}]+/gu;

/**
 * For each configuration of STOP_LISTS (or `config` alone, when known) whose function words
 * `text` holds: those words, and the text without them (search-terms.ts reads each under the
 * configuration: a term of the first and not of the second comes from function words only).
 */
export function stopWordsOf(text: string, config?: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const [name, { fold, words }] of STOP_LISTS) {
    if (config !== undefined && name !== config) continue;
    const removed: string[] = [];
    const kept = text.replace(WORD, (w) => (words.has(fold(w)) ? (removed.push(w), " ") : w));
    if (removed.length > 0) out[name] = [removed.join(" "), kept];
  }
  return out;
}

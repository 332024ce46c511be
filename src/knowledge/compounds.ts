/**
 * Closed compounds a question may hold: German Datenbankverbindung, Dutch wachtwoordbeheer,
 * Swedish lösenordshantering — a word the knowledge base may never have seen although it holds
 * both halves. These are the candidate splits of each long word of a cased script into a head
 * and a tail, the head also without one or two trailing letters (the linking element of
 * Verbindungs|aufbau, Arbeit|s|speicher, boek|en|kast). Candidates only: search keeps a split of a
 * word the knowledge base lacks whose head and tail it holds as terms (search-terms.ts), so no
 * list of words or of linking elements of any language is needed.
 */

import { cased } from "./initials.ts";

/** Fewest letters of a head or a tail (Tag, Bau, Zeit are halves; two letters are noise). */
const MIN_PART = 3;
/** Letters a linking element may add between the halves (s, e, n, en, es, er…). */
const MAX_LINK = 2;
/** Shortest word read as a compound: two halves of MIN_PART letters and more. */
const MIN_WORD = 2 * MIN_PART + 1;
/** Longest word read (a longer "word" is a hash, a path or a token, no compound). */
const MAX_WORD = 40;
/**
 * Words read from the question, its longest (compounds are long): each cut of each is checked in
 * SQL, and a crafted question of many long words would otherwise cost a search ~100 ms.
 */
const MAX_WORDS = 12;

/**
 * One line per candidate split, "word head tail" (lower case; letters only, so the line splits
 * on spaces): every cut of every long word, the head with and without its last one or two
 * letters.
 */
export function compoundLines(text: string): string {
  const words = [...new Set((text.match(/[\p{L}\p{M}]+/gu) ?? []).map((w) => w.toLowerCase()))]
    .filter((w) => cased(w) && [...w].length >= MIN_WORD && [...w].length <= MAX_WORD)
    .sort((a, b) => [...b].length - [...a].length)
    .slice(0, MAX_WORDS);
  const lines = new Set<string>();
  for (const word of words) {
    const letters = [...word];
    for (let cut = MIN_PART; cut <= letters.length - MIN_PART; cut++) {
      const tail = letters.slice(cut).join("");
      for (let link = 0; link <= MAX_LINK && cut - link >= MIN_PART; link++)
        lines.add(`${word} ${letters.slice(0, cut - link).join("")} ${tail}`);
    }
  }
  return [...lines].join("\n");
}

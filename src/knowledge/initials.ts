/**
 * Acronyms a question may mean: the initials of each run of three to five consecutive words of
 * a cased script ("JSON web tokens" → jwt, "server-sent events" → sse), where documentation
 * writes the acronym. Candidates only: search keeps one when every word of its run is a content
 * word of the knowledge base's language (no stop word: "how do I" is no acronym) and a title or
 * heading of the knowledge base writes the initials in capitals (search-terms.ts). No list of
 * acronyms, no phrase of any language.
 */

/** Fewest and most words an acronym stands for (two letters are too often a word by chance). */
const MIN_RUN = 3;
const MAX_RUN = 5;
/** Words read, from the start: a question's acronyms are few, and each is checked in SQL. */
const MAX_WORDS = 200;

/** A word whose first letter has a case: Latin, Greek, Cyrillic, Armenian… (acronyms' scripts). */
export const cased = (word: string) => {
  const first = word[0]!;
  return first.toLowerCase() !== first.toUpperCase();
};

/**
 * One line per candidate, "initials word word word" (lower case), for runs of cased words
 * within one stretch of text (punctuation other than a hyphen or an apostrophe ends a run).
 */
export function initialsLines(text: string): string {
  const lines = new Set<string>();
  let read = 0;
  for (const stretch of text.split(/[^\p{L}\p{M}\p{N}\s'’-]+/u)) {
    const words = (stretch.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).slice(0, Math.max(0, MAX_WORDS - read));
    read += words.length;
    let start = 0;
    for (let end = 0; end <= words.length; end++) {
      if (end < words.length && cased(words[end]!)) continue;
      // words[start, end) is a run of cased words.
      for (let i = start; i < end; i++)
        for (let n = MIN_RUN; n <= MAX_RUN && i + n <= end; n++) {
          const run = words.slice(i, i + n).map((w) => w.toLowerCase());
          lines.add(`${run.map((w) => w[0]).join("")} ${run.join(" ")}`);
        }
      start = end + 1;
    }
  }
  return [...lines].join("\n");
}

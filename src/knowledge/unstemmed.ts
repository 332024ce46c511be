/**
 * Languages PostgreSQL has no stemmer for (Polish, Czech, Slovak, Ukrainian): its `simple`
 * configuration keeps every word as written, so "kosz", "kosza" and "koszu" (a bucket) were three
 * words, and function words (w, z, się, і, на) matched nearly every passage and counted as words a
 * question shares with a page. Their text is read here before `to_tsvector`, on both sides (ingest
 * and question): function words dropped, every other word cut to its first `PREFIX_LETTERS`
 * letters, a crude stemmer that joins a word's inflected forms (eval/README.md: chosen on Polish,
 * reported on Czech and Ukrainian).
 */

/**
 * Common function words of each, for detection (the most hits win: language.ts; a tie goes to
 * the language listed first). One-letter prepositions (z, v, a, i, o) are left out: "a" is
 * English too, and a short English page ("To … write a file.") was taken for Czech.
 */
export const UNSTEMMED_FUNCTION_WORDS = {
  polish: "w na do to się że jest oraz czy może przez są tylko jeśli który która które być nie dla jak",
  czech: "je se na ve do to že jsem jsou také nebo jako jsme být který která které není může pouze při",
  slovak: "je sa na vo do to že som sú tiež alebo ako sme byť ktorý ktorá ktoré nie môže iba pri",
};
export type Unstemmed = keyof typeof UNSTEMMED_FUNCTION_WORDS | "ukrainian";
export const UNSTEMMED: Unstemmed[] = ["polish", "czech", "slovak", "ukrainian"];

/** Letters a word keeps. */
export const PREFIX_LETTERS = 6;

// Function and question words, dropped: pronouns, prepositions, conjunctions, particles.
const STOP_WORDS = new Set(
  [
    "a i w we z ze na do od po przez dla o u za przy bez nie tak tylko może można by był była było są być jest",
    "mi mnie mam ma mamy się że żeby czy jak co to ten ta te tego tej też jeszcze już bo lub albo oraz ale",
    "jaki jaka jakie który która które kiedy gdzie dlaczego ile",
    "v ve s se k ke pro je jsou jsem jsme byl bylo aby jen mě má mám nebo také už kdy kde proč jaký která který",
    "vo so zo pre sú som sme bol bolo ako čo tá tie alebo tiež len ma prečo kde",
    "і й та в у на з із до від за по для про що як це не але або чи вже ще ми ви він вона вони його її є",
    "який яка яке які коли де чому скільки мені мене нам нас вас вам",
  ]
    .join(" ")
    .split(" "),
);

const WORD = /[\p{L}\p{M}]+/gu;

/** `text` as an unstemmed language is indexed and searched: function words out, words cut. */
export const cutWords = (text: string) =>
  text.replace(WORD, (w) => {
    const lower = w.toLowerCase();
    return STOP_WORDS.has(lower) ? " " : [...lower].slice(0, PREFIX_LETTERS).join("");
  });

/**
 * Languages of the knowledge base: which PostgreSQL text-search configuration stems a text, how
 * CJK text (no spaces between words) is cut into words, and how a document's language is
 * guessed when none is given. Ingest and search both go through `searchableText`, so a
 * question is cut exactly as the passages were.
 */
import { CJK_RUN, cjkTerms, fullWidthKana, HANGUL, indexedTerms, KANA } from "./cjk.ts";
import { SEA_RUN, seaWords } from "./sea-words.ts";
import { cutWords, UNSTEMMED, UNSTEMMED_FUNCTION_WORDS, type Unstemmed } from "./unstemmed.ts";

/** Language names accepted by `language` settings, and the text-search configuration of each. */
export const LANGUAGE_CONFIGS = {
  simple: "simple",
  arabic: "arabic",
  danish: "danish",
  dutch: "dutch",
  english: "english",
  finnish: "finnish",
  french: "french",
  german: "german",
  greek: "greek",
  hungarian: "hungarian",
  indonesian: "indonesian",
  italian: "italian",
  norwegian: "norwegian",
  portuguese: "portuguese",
  romanian: "romanian",
  russian: "russian",
  spanish: "spanish",
  swedish: "swedish",
  turkish: "turkish",
  // No stemmer exists for these: their words are cut to a prefix before indexing (unstemmed.ts).
  polish: "simple",
  czech: "simple",
  slovak: "simple",
  ukrainian: "simple",
  // Nor for these: words come from the segmenter and are kept as they are.
  chinese: "simple",
  japanese: "simple",
  korean: "simple",
} as const;

export type Language = keyof typeof LANGUAGE_CONFIGS;
export const LANGUAGES = Object.keys(LANGUAGE_CONFIGS) as Language[];
export const isLanguage = (v: unknown): v is Language => typeof v === "string" && Object.hasOwn(LANGUAGE_CONFIGS, v);

/** A SQL CASE body mapping a language column to its configuration (constants only). */
export const configCaseSql = (column: string) =>
  `case ${column} ${Object.entries(LANGUAGE_CONFIGS)
    .map(([l, c]) => `when '${l}' then '${c}'`)
    .join(" ")} else 'english' end`;

/** Thai, Lao, Khmer and Burmese runs cut into their words, space-separated (sea-words.ts). */
const spacedSea = (text: string) => text.replace(SEA_RUN, (run) => ` ${seaWords(run).join(" ")} `);

/** Text PostgreSQL's text and JSON take: a lone surrogate (a cut inside a character) and NUL become characters they accept. */
export const storableText = (text: string) => text.toWellFormed().replaceAll("\0", " ");

/**
 * The text handed to `to_tsvector`: unchanged, except that text written without spaces is cut
 * into terms: CJK runs (cjk.ts), and Thai, Lao, Khmer and Burmese ones (sea-words.ts).
 */
export const searchableText = (text: string) => cutCounted(text).text;

/** searchableText, with its CJK runs' terms counted and their words (the segmenter's segments). */
function cutCounted(text: string): { text: string; cjkTerms: number; cjkWords: number } {
  let [terms, words] = [0, 0];
  const cut = spacedSea(
    fullWidthKana(text).replace(CJK_RUN, (run) => {
      const found = cjkTerms(run);
      const indexed = indexedTerms(found);
      [terms, words] = [terms + indexed.length, words + found.length];
      return ` ${indexed.join(" ")} `;
    }),
  );
  return { text: cut, cjkTerms: terms, cjkWords: words };
}

/** Whether `language` is read by unstemmed.ts's prefix cut (PostgreSQL has no stemmer for it). */
export const isUnstemmed = (language: Language) => (UNSTEMMED as string[]).includes(language);

const wordCount = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

/**
 * A document's text as indexed — searchableText, then cut to prefixes for an unstemmed language —
 * and two lengths: `len`, its terms (BM25's unit: a CJK run's words, pairs and characters), and
 * `words`, the words a reader counts (a CJK run's words as the segmenter finds them, not the
 * pairs and characters beside them), which measure the knowledge base's size.
 */
export function indexedTextAndLength(text: string, language: Language): { text: string; len: number; words: number } {
  const searchable = cutCounted(text);
  const cut = isUnstemmed(language) ? cutWords(searchable.text) : searchable.text;
  const len = wordCount(cut);
  return { text: cut, len, words: Math.max(0, len - searchable.cjkTerms) + searchable.cjkWords };
}

/** A SQL CASE mapping a language column to whether its text is cut (constants only). */
export const cutCaseSql = (column: string) => `(${column} in (${UNSTEMMED.map((l) => `'${l}'`).join(", ")}))`;

/**
 * The same text with CJK runs cut into their dictionary words only, no bigrams: which of a
 * question's terms are words of it (a bigram spanning two words is an artefact of cutting, so
 * the abstention rule does not hold it against a passage when the knowledge base lacks it).
 */
export const wordsOnlyText = (text: string) =>
  spacedSea(fullWidthKana(text).replace(CJK_RUN, (run) => ` ${cjkTerms(run).words.join(" ")} `));

/** CJK runs' pairs of characters the segmenter left alone (cjk.ts): words its dictionary lacks. */
export const loosePairsText = (text: string) =>
  (fullWidthKana(text).match(CJK_RUN) ?? []).flatMap((run) => cjkTerms(run).loose).join(" ");

/**
 * Question words of each language whose text-search configuration keeps them (PostgreSQL's
 * stop lists drop English "how" and "what", not French "comment" or "pourquoi"): they frame a
 * question, so search reads a question without them. The question alone: passages keep them.
 */
export const QUESTION_WORDS: Partial<Record<Language, string>> = {
  french: "comment quel quelle quels quelles pourquoi quand combien lequel laquelle lesquels lesquelles où",
  german: "wie was warum wann wo welche welcher welches wer wieso weshalb",
  spanish: "cómo qué cuándo dónde cuál cuáles quién quiénes cuánto cuánta",
  italian: "come cosa perché quando dove quale quali chi quanto quanta",
  portuguese: "como que porque quando onde qual quais quem quanto quanta",
  dutch: "hoe wat waarom wanneer waar welke wie",
  russian: "почему какой какая какое какие сколько зачем",
};

/**
 * Languages that write their compounds closed, as one word (German Datenbankverbindung, Dutch
 * wachtwoordbeheer, Swedish lösenordshantering, Finnish tietokanta): a question's word their
 * knowledge base lacks may be two words it holds (compounds.ts). English, French and Spanish
 * write theirs open ("blood pressure"), and a cut there is chance (pressure into pre + sure).
 */
const CLOSED_COMPOUNDS: Language[] = ["german", "dutch", "swedish", "danish", "norwegian", "finnish", "hungarian"];
/** A SQL list of the configurations of CLOSED_COMPOUNDS (constants only). */
export const closedCompoundConfigsSql = () => `(${CLOSED_COMPOUNDS.map((l) => `'${LANGUAGE_CONFIGS[l]}'`).join(", ")})`;

/** A SQL CASE body mapping a configuration name to its question words (constants only). */
export const questionWordsCaseSql = (column: string) =>
  `case ${column} ${Object.entries(QUESTION_WORDS)
    .map(([l, w]) => `when '${LANGUAGE_CONFIGS[l as Language]}' then '${w}'`)
    .join(" ")} else '' end`;

// The commonest function words of each language with a stemmer the detector tells apart (any
// script but CJK): a word shared by several languages counts for each, the most hits win. The
// later lists leave out words other languages or code use too (var, for, at, de, en, se, on).
const FUNCTION_WORDS: Partial<Record<Language, string>> = {
  english: "the and of to is in that it for you with are this on be as can your by from",
  french: "le la les des est et un une du pour que qui dans vous pas sur avec ce au",
  german: "der die und das ist nicht ein eine zu den mit sie sich auf für von dem im",
  spanish: "el la los las de que y en es un una por para con se del como su al",
  italian: "il di che è la e per un una non con del della sono gli le si da al",
  portuguese: "o de que e do da em um para é com não uma os no se na por mais",
  dutch: "de het een en van is dat op te in voor niet met zijn er je die ook",
  swedish: "och att det som på är av för med till inte ett jag också ska vara efter eller när",
  danish: "og det til på som med af ikke jeg også skal være efter eller hvis når kun",
  norwegian: "og det som på til av med ikke jeg seg også skal være etter eller hvis når",
  finnish: "ja ei että oli hän mutta kun tai jos myös ovat kuin mitä niin tämä voi sekä joka jotka",
  romanian: "și în cu pe care nu este din pentru să mai sau dar sunt fost acest această poate fi",
  hungarian: "az és hogy nem egy meg csak ez mint már vagy kell sem volt lesz még azt ami",
  turkish: "ve bir bu için ile gibi çok daha olarak ama kadar sonra değil olan ise veya şu",
  indonesian: "yang dan ke dari ini itu untuk dengan tidak pada akan dalam juga atau bisa adalah",
  russian: "и в не на что с по это как к но он из у за от же то все так для вы мы если или",
  greek: "και το να η ο της του σε με για δεν είναι τα την που από θα στο στην οι",
  arabic: "في من على إلى أن عن مع هذا التي الذي ما لا كان هو هذه أو ثم قد كل بين",
};
const FUNCTION_LANGUAGES = [
  ...(Object.keys(FUNCTION_WORDS) as Language[]),
  ...(Object.keys(UNSTEMMED_FUNCTION_WORDS) as Exclude<Unstemmed, "ukrainian">[]),
];
const functionWordsOf = (l: Language) =>
  l in UNSTEMMED_FUNCTION_WORDS ? UNSTEMMED_FUNCTION_WORDS[l as Exclude<Unstemmed, "ukrainian">] : FUNCTION_WORDS[l]!;
/** Each function word with the languages (their indexes in FUNCTION_LANGUAGES) it belongs to: one lookup a word. */
const FUNCTION_INDEX = new Map<string, number[]>();
FUNCTION_LANGUAGES.forEach((language, i) => {
  for (const w of functionWordsOf(language).split(" ")) FUNCTION_INDEX.set(w, [...(FUNCTION_INDEX.get(w) ?? []), i]);
});

/**
 * Guesses a text's language from its first 5,000 characters of prose (code left out): a quarter
 * or more of its letters in CJK scripts makes it Japanese (any kana), Korean (any Hangul) or
 * Chinese; otherwise the language whose commonest function words occur most often among its
 * words wins, provided they make at least 5% of them; else `ukrainian` or `turkish` when its
 * letters say so, `english` when the text is mostly ASCII letters, `simple` when not.
 */
export function detectLanguage(text: string): Language {
  // Counted without an array of every letter or word per language: it runs for every document
  // ingested without a language, and was half of the CLI's time on a large corpus.
  // Code is not the language of the page: `var` and `for` are not Danish, nor `de` a French word.
  // Nor are addresses and file names: the "com" of github.com is not Portuguese "with".
  const prose = text.slice(0, 20_000).replace(FENCED_CODE, " ").replace(INLINE_CODE, " ").replace(TOKEN, unlessAddress);
  const sample = (/\p{L}/u.test(prose) ? prose : text).slice(0, 5_000);
  const letters = codePoints(sample.replace(NOT_LETTERS, ""));
  if (letters === 0) return "english";
  const cjk = sample.match(CJK_RUN)?.join("") ?? "";
  if (codePoints(cjk) / letters >= 0.25) return KANA.test(cjk) ? "japanese" : HANGUL.test(cjk) ? "korean" : "chinese";
  // A hyphen joins a word's parts: the "e" of a Czech "e-mailové" is not Portuguese "and".
  const words = sample.toLowerCase().match(HYPHENATED_WORD) ?? [];
  const hits = FUNCTION_LANGUAGES.map(() => 0);
  for (const w of words) {
    const languages = FUNCTION_INDEX.get(w);
    if (languages) for (const i of languages) hits[i]!++;
  }
  let best: Language = "english";
  let bestHits = 0;
  // Ukrainian shares Russian's commonest words but has letters of its own (not a name or two in a
  // Russian page: Київ): not stemmed as Russian.
  const ukrainian = (sample.match(UKRAINIAN_LETTERS)?.length ?? 0) >= Math.max(3, letters * 0.005);
  FUNCTION_LANGUAGES.forEach((language, i) => {
    if (hits[i]! > bestHits && !(language === "russian" && ukrainian)) [best, bestHits] = [language, hits[i]!];
  });
  if (bestHits >= Math.max(1, words.length * 0.05)) return best;
  if (ukrainian) return "ukrainian";
  // An agglutinative language writes few words of its own apart (Turkish -de, -mi, -ile are
  // endings): its letters tell it when its function words fall short.
  if ((sample.match(TURKISH_LETTERS)?.length ?? 0) >= Math.max(3, letters * 0.005)) return "turkish";
  return sample.replace(NOT_ASCII_LETTERS, "").length / letters > 0.9 ? "english" : "simple";
}

const UKRAINIAN_LETTERS = /[іїєґ]/giu;
// Dotless ı and ğ: Turkish (and Azerbaijani, which the Turkish stemmer serves better than none).
const TURKISH_LETTERS = /[ığ]/gu;
const HYPHENATED_WORD = /\p{L}+(?:-\p{L}+)*/gu;
// A fence opens a line (up to three spaces in) and closes on a line of its own, or at the end.
const FENCED_CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[ \t]*$|(?![\s\S]))/gm;
const INLINE_CODE = /`[^`\n]*`/g;
// A run of non-spaces with a dot or slash before a letter is a URL, a host, a path, a file name
// (tested a run at a time: one pattern for it would backtrack over a long run without one).
const TOKEN = /[^\s()[\]<>]+/g;
const unlessAddress = (run: string) => (/[./]\p{L}/u.test(run) ? " " : run);
const NOT_LETTERS = /\P{L}+/gu;
const NOT_ASCII_LETTERS = /[^a-z]+/gi;

/** Code points of `s` (a surrogate pair is one), counted without splitting it. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--;
  }
  return n;
}

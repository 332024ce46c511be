/**
 * Languages of the knowledge base: which PostgreSQL text-search configuration stems a text, how
 * CJK text (no spaces between words) is cut into words, and how a document's language is
 * guessed when none is given. Ingest and search both go through `searchableText`, so a
 * question is cut exactly as the passages were.
 */

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
  // No stemmer exists for these: words come from the segmenter and are kept as they are.
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

// Scripts written without spaces between words.
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;

const segmenters = new Map<string, Intl.Segmenter | null>();
function segmenter(locale: string): Intl.Segmenter | null {
  if (!segmenters.has(locale)) {
    segmenters.set(
      locale,
      typeof Intl.Segmenter === "function" ? new Intl.Segmenter(locale, { granularity: "word" }) : null,
    );
  }
  return segmenters.get(locale)!;
}

/**
 * Words of one run of CJK characters, space-separated. `Intl.Segmenter` finds the words its
 * dictionary knows; characters it leaves alone (a technical term like 组件 comes out as 组 件)
 * are joined into overlapping bigrams, which is also the whole method when no segmenter
 * exists. The same run always gives the same words, so a question matches the passages.
 */
export function segmentCjk(run: string): string {
  const locale = KANA.test(run) ? "ja" : HANGUL.test(run) ? "ko" : "zh";
  const seg = segmenter(locale);
  const words = seg ? [...seg.segment(run)].filter((s) => s.isWordLike).map((s) => s.segment) : [...run];
  const out: string[] = [];
  let singles: string[] = [];
  const flush = () => {
    if (singles.length === 1) out.push(singles[0]!);
    for (let i = 0; i + 1 < singles.length; i++) out.push(singles[i]! + singles[i + 1]!);
    singles = [];
  };
  for (const w of words) {
    if ([...w].length === 1) singles.push(w);
    else {
      flush();
      out.push(w);
    }
  }
  flush();
  return out.join(" ");
}

/** The text handed to `to_tsvector`: unchanged, except that CJK runs are cut into words. */
export const searchableText = (text: string) => text.replace(CJK_RUN, (run) => ` ${segmentCjk(run)} `);

// The commonest function words of each language the detector tells apart (Latin script).
const FUNCTION_WORDS: Partial<Record<Language, string>> = {
  english: "the and of to is in that it for you with are this on be as can your by from",
  french: "le la les des est et un une du pour que qui dans vous pas sur avec ce au",
  german: "der die und das ist nicht ein eine zu den mit sie sich auf für von dem im",
  spanish: "el la los las de que y en es un una por para con se del como su al",
  italian: "il di che è la e per un una non con del della sono gli le si da al",
  portuguese: "o de que e do da em um para é com não uma os no se na por mais",
  dutch: "de het een en van is dat op te in voor niet met zijn er je die ook",
};
const FUNCTION_SETS = Object.entries(FUNCTION_WORDS).map(([l, w]) => [l as Language, new Set(w.split(" "))] as const);

/**
 * Guesses a text's language (first 5,000 characters): a quarter or more of its letters in CJK
 * scripts makes it Japanese (any kana), Korean (any Hangul) or Chinese; otherwise the language
 * whose commonest function words occur most often among its words wins, provided they make at
 * least 5% of them; else `english` when the text is mostly ASCII letters, `simple` when not.
 */
export function detectLanguage(text: string): Language {
  const sample = text.slice(0, 5_000);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return "english";
  const cjk = sample.match(CJK_RUN)?.join("") ?? "";
  if ([...cjk].length / letters >= 0.25) return KANA.test(cjk) ? "japanese" : HANGUL.test(cjk) ? "korean" : "chinese";
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best: Language = "english";
  let bestHits = 0;
  for (const [language, set] of FUNCTION_SETS) {
    const hits = words.filter((w) => set.has(w)).length;
    if (hits > bestHits) [best, bestHits] = [language, hits];
  }
  if (bestHits >= Math.max(1, words.length * 0.05)) return best;
  return (sample.match(/[a-z]/gi)?.length ?? 0) / letters > 0.9 ? "english" : "simple";
}

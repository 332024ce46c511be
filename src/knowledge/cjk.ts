/**
 * Words of Chinese, Japanese and Korean text, which has no spaces between them. Ingest and
 * search cut text the same way (language.ts's `searchableText`), so a question's words are the
 * passages' words.
 *
 * A run of CJK characters gives three kinds of terms, all indexed, so a term matches whichever
 * way its context made the segmenter cut it:
 * - words: what `Intl.Segmenter` finds in its dictionary (two characters or more);
 * - bigrams: every pair of neighbouring characters — the classic CJK indexing unit (Lucene's
 *   CJKAnalyzer), which finds the words the dictionary lacks (ICU cuts 组件, component, into
 *   组 件, and cuts the same characters differently in different sentences);
 * - characters: single-character words (传, pass; 写, write) and a last resort. They score, but
 *   search does not count them in a question's coverage (search.ts): a character says little
 *   about a topic.
 * On the Vue questions' half A, words + bigrams + characters ranked best (top-1 90%, against
 * 85% without characters and 85% for bigrams alone; eval/README.md).
 * Function words (的, 了, 吗, how/what words such as 怎么 and 如何; の, は, を…) are dropped, and
 * no bigram is made across a function character: they occur everywhere and say nothing about
 * the topic, and a bigram spanning one (的组 in 的组件) would only add noise.
 */

// Scripts written without spaces between words.
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
export const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
export const HANGUL = /\p{Script=Hangul}/u;

// Chinese function characters and words: particles, pronouns, conjunctions, question words, modals.
const ZH_STOP_CHARS = "的了吗呢吧啊么着过我你他她它这那是在和与及或把被让给将就都也还又很";
const ZH_STOP_WORDS =
  "怎么 怎样 怎么样 如何 什么 为什么 为何 哪 哪些 哪个 哪里 是否 是不是 有没有 我们 你们 他们 它们 " +
  "这个 那个 这些 那些 这样 那样 一个 一些 可以 应该 需要 能够 如果 然后 但是 因为 所以 请问 一下";
// Japanese particles, auxiliaries and the commonest function words.
const JA_STOP_CHARS = "のにはをがでとへもやかなだ";
const JA_STOP_WORDS =
  "です ます ました でしょう ない ある いる する して され られる から まで より この その どう どの なに 何 ため こと もの";
const STOP_CHARS = new Set([...ZH_STOP_CHARS, ...JA_STOP_CHARS]);
const STOP_WORDS = new Set(`${ZH_STOP_WORDS} ${JA_STOP_WORDS}`.split(" "));

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

/** The terms of one CJK run, split by kind (see the module comment). */
export function cjkTerms(run: string): { words: string[]; bigrams: string[]; chars: string[] } {
  const locale = KANA.test(run) ? "ja" : HANGUL.test(run) ? "ko" : "zh";
  const seg = segmenter(locale);
  // Without a segmenter every character is a segment: bigrams alone.
  const segments = seg ? [...seg.segment(run)].map((s) => s.segment) : [...run];
  const words: string[] = [];
  const bigrams: string[] = [];
  const chars: string[] = [];
  // Characters between function words; bigrams are made inside each such stretch only.
  let stretch: string[] = [];
  const flush = () => {
    chars.push(...stretch.filter((c) => !STOP_CHARS.has(c)));
    for (let i = 0; i + 1 < stretch.length; i++) bigrams.push(stretch[i]! + stretch[i + 1]!);
    stretch = [];
  };
  for (const s of segments) {
    const letters = [...s];
    if (STOP_WORDS.has(s) || (letters.length === 1 && STOP_CHARS.has(s))) {
      flush();
      continue;
    }
    if (letters.length >= 2) words.push(s);
    stretch.push(...letters);
  }
  flush();
  return { words, bigrams, chars };
}

/** A CJK run as indexed: its words, bigrams and characters, space-separated. */
export function segmentCjk(run: string): string {
  const { words, bigrams, chars } = cjkTerms(run);
  return [...words, ...bigrams, ...chars].join(" ");
}

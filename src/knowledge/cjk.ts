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
 * Pairs across two words' boundary and characters score at a reduced weight (`pairWeight`,
 * `charWeight` in search-options.ts): they repeat the evidence of the words they are cut from. A
 * pair of characters the segmenter left alone (`loose`: 插 件 for 插件, plugin) is the only
 * evidence of a word its dictionary lacks, and scores as a word.
 * On the Vue questions' half A, words + bigrams + characters ranked best (top-1 90%, against
 * 85% without characters and 85% for bigrams alone; eval/README.md).
 * Function words (的, 了, 吗, how/what words such as 怎么 and 如何; の, は, を…) are dropped, and
 * no bigram is made across a function character: they occur everywhere and say nothing about
 * the topic, and a bigram spanning one (的组 in 的组件) would only add noise.
 * Japanese writes its grammar in hiragana: a segment that is all hiragana (particles, auxiliaries,
 * endings: ですが, たい, ので) is dropped like a function word, and a word's trailing hiragana
 * (okurigana: 使い, 使う, 設定すれば) are cut off, so its inflected forms meet at its stem —
 * as Korean words meet at theirs. Without this, a long natural Japanese question's grammar
 * counted as words the knowledge base never saw, and the abstention refused it (eval/README.md).
 */

// Scripts written without spaces between words, and the prolonged sound mark (ー, half-width ｰ),
// which Unicode files under no script but which belongs inside katakana words (サーバー, ツール).
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ーｰ]+/gu;
export const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
export const HANGUL = /\p{Script=Hangul}/u;
// Hiragana (and a long vowel mark among them: すごーい) at the end of a segment; a segment of marks alone.
const HIRAGANA_END = /[\p{Script=Hiragana}ーｰ]*\p{Script=Hiragana}[\p{Script=Hiragana}ーｰ]*$/u;
const LONG_MARKS = /^[ーｰ]*$/u;
const LONG_MARK = /[ーｰ]/u;
const HALF_WIDTH_KANA = /[\uFF61-\uFF9F]+/g;

/** Half-width katakana (ﾃﾞｰﾀ) as the full-width text it stands for (データ), before any cutting. */
export const fullWidthKana = (text: string) => text.replace(HALF_WIDTH_KANA, (run) => run.normalize("NFKC"));

// Chinese function characters and words: particles, pronouns, conjunctions, question words, modals.
const ZH_STOP_CHARS = "的了吗呢吧啊么着过我你他她它这那是在和与及或把被让给将就都也还又很";
const ZH_STOP_WORDS =
  "怎么 怎样 怎么样 如何 什么 为什么 为何 哪 哪些 哪个 哪里 是否 是不是 有没有 我们 你们 他们 它们 " +
  "这个 那个 这些 那些 这样 那样 一个 一些 可以 应该 需要 能够 如果 然后 但是 因为 所以 请问 一下";
// Japanese particles, auxiliaries and the commonest function words.
const JA_STOP_CHARS = "のにはをがでとへもやかなだ";
const JA_STOP_WORDS =
  "です ます ました でしょう ない ある いる する して され られる から まで より この その どう どの なに 何 ため こと もの";
// Korean is written in spaced words (eojeol) that carry their particles and endings: 컴포넌트에서,
// 데이터를. A word is indexed by its stem — the longest particle or ending at its end dropped
// while two syllables remain — so the question's 컴포넌트로 meets the page's 컴포넌트를.
const KO_SUFFIXES = (
  "에서부터 으로부터 에게서 한테서 이라고 이라는 에서는 에서도 에게는 으로는 으로도 까지는 부터는 이지만 이라면 " +
  "하려면 되려면 해야 하나요 하나 하면 해서 하는 되는 되나요 인가요 있나요 없나요 는데요 는데 려면 나요 세요 어요 아요 " +
  "에서 에게 한테 께서 으로 까지 부터 처럼 보다 하고 이나 이랑 에는 에도 와는 과는 이고 라고 라는 " +
  "은 는 이 가 을 를 의 에 와 과 도 만 로 랑 요 " +
  // Verb and adjective endings, most on 하다 and 되다 (입력한, 사용됩니다, 바뀌도록): documentation
  // writes most verbs as a noun and 하다, and a question's 입력한 is the page's 입력.
  "되었습니다 했습니다 습니다 합니다 됩니다 입니다 하도록 되도록 하려고 하면서 되면서 하는데 되는데 하거나 되거나 " +
  "하지만 되지만 했는데 했어요 했다 한다 된다 하며 되며 하여 되어 돼서 하기 되기 하게 되게 하지 되지 되고 되면 " +
  "한다면 된다면 하다면 했다면 다면 라면 이면 도록 거나 지만 면서 니까 려고 으면 한 할 함 된 될 됨 고 게 면"
)
  .split(" ")
  .sort((a, b) => b.length - a.length);
const KO_STOP_WORDS =
  "어떻게 무엇을 무엇 뭐 왜 언제 어디 어디서 그 이 저 것 것을 수 좀 제가 저는 나는 우리 그리고 그런데 그래서 하지만 " +
  "또는 혹시 정말 너무 있나요 있어요 하나요 하죠 싶은데 싶어요 싶습니다 싶은 있을까요 할까요 됩니다 합니다 " +
  // Pronouns and demonstratives (저희 is the humble 우리), and the commonest fillers.
  "저희 너희 당신 이런 그런 저런 이렇게 그렇게 저렇게 이거 그거 저거 이것 그것 저것 여기 거기 저기 뭐가 뭔가 그냥 진짜";
const STOP_CHARS = new Set([...ZH_STOP_CHARS, ...JA_STOP_CHARS]);
const STOP_WORDS = new Set(`${ZH_STOP_WORDS} ${JA_STOP_WORDS} ${KO_STOP_WORDS}`.split(" "));

/**
 * A Korean word's stem: its particle or ending dropped while two syllables remain; else the stem
 * of a formal -ㅂ니다 verb (바뀝니다 → 바뀌: the question's 바뀌어요 and 바뀌면 meet it).
 */
export function koreanStem(word: string): string {
  const length = [...word].length;
  for (const suffix of KO_SUFFIXES)
    if (word.endsWith(suffix) && length - [...suffix].length >= 2) return word.slice(0, -suffix.length);
  return formalStem(word);
}

// A Hangul syllable is 0xAC00 + (initial × 21 + vowel) × 28 + final; final 17 is ㅂ.
const FINAL_PIEUP = 17;

/** The verb stem of a formal -ㅂ니다 form (바뀝니다 → 바뀌, 없어집니다 → 없어지), else the word. */
function formalStem(word: string): string {
  const letters = [...word];
  if (letters.length < 3 || !word.endsWith("니다")) return word;
  const code = letters.at(-3)!.codePointAt(0)! - 0xac00;
  if (code < 0 || code >= 11_172 || code % 28 !== FINAL_PIEUP) return word;
  return letters.slice(0, -3).join("") + String.fromCodePoint(0xac00 + code - FINAL_PIEUP);
}

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
export function cjkTerms(run: string): {
  words: string[];
  bigrams: string[];
  chars: string[];
  loose: string[];
  /** The run's length in words: the segmenter's segments, function words too. */
  length: number;
} {
  const locale = KANA.test(run) || LONG_MARK.test(run) ? "ja" : HANGUL.test(run) ? "ko" : "zh";
  const seg = segmenter(locale);
  // Without a segmenter every character is a segment: bigrams alone.
  const segments = seg ? [...seg.segment(run)].map((s) => s.segment) : [...run];
  const words: string[] = [];
  const bigrams: string[] = [];
  const chars: string[] = [];
  // Pairs of neighbouring characters the segmenter left alone: a word its dictionary lacks
  // (组件, 插件), not an artefact across two words' boundary.
  const loose: string[] = [];
  let lone: string | undefined;
  // Characters between function words; bigrams are made inside each such stretch only.
  let stretch: string[] = [];
  const flush = () => {
    chars.push(...stretch.filter((c) => !STOP_CHARS.has(c)));
    for (let i = 0; i + 1 < stretch.length; i++) bigrams.push(stretch[i]! + stretch[i + 1]!);
    stretch = [];
    lone = undefined;
  };
  for (const segment of segments) {
    if (locale === "ja" && (HIRAGANA_END.test(segment) || LONG_MARKS.test(segment))) {
      // Japanese inflects in hiragana: what is all hiragana is grammar (particles, auxiliaries,
      // endings: ですが, たい, ので), and a word's okurigana are its ending (使い, 使う → 使).
      const stem = segment.replace(HIRAGANA_END, "");
      if (!LONG_MARKS.test(stem) && !STOP_WORDS.has(stem) && !STOP_CHARS.has(stem)) {
        if ([...stem].length >= 2) words.push(stem);
        stretch.push(...stem);
      }
      flush();
      continue;
    }
    const s = locale === "ko" ? koreanStem(segment) : segment;
    const letters = [...s];
    if (STOP_WORDS.has(segment) || STOP_WORDS.has(s) || (letters.length === 1 && STOP_CHARS.has(s))) {
      flush();
      continue;
    }
    if (letters.length >= 2) words.push(s);
    if (letters.length === 1 && lone !== undefined) loose.push(lone + s);
    lone = letters.length === 1 ? s : undefined;
    stretch.push(...letters);
  }
  flush();
  return { words, bigrams, chars, loose, length: segments.length };
}

/** A CJK run as indexed: its words, bigrams and characters, space-separated. */
export const segmentCjk = (run: string): string => indexedTerms(cjkTerms(run)).join(" ");

/** The terms a run is indexed by, from its `cjkTerms`: words, bigrams, characters. */
export const indexedTerms = ({ words, bigrams, chars }: ReturnType<typeof cjkTerms>) => [
  ...words,
  ...bigrams,
  ...chars,
];

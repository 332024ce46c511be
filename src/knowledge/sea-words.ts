/**
 * Words of Thai, Lao, Khmer and Burmese text, which, like Chinese or Japanese, has no spaces
 * between words: PostgreSQL's parser would index a whole phrase as one term, which no question
 * ever matches. These scripts are alphabets, so a character or a pair of them means nothing
 * (unlike CJK, cjk.ts): only the words `Intl.Segmenter` finds are indexed — ICU cuts each of them
 * with its own dictionary. Ingest and search cut text the same way (language.ts's
 * `searchableText`), so a question's words are the passages' words.
 */

export const SEA_RUN = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;

// Thai function words (particles, pronouns, conjunctions, prepositions, modals, question words),
// dropped as cjk.ts drops Chinese and Japanese ones: PostgreSQL has no Thai stop list, and in a
// small knowledge base ให้ (to, let) or ที่ (that, at) would count as rare words of the topic.
const TH_STOP_WORDS = new Set(
  (
    "ที่ และ ของ ใน ให้ ได้ จะ เป็น มี การ ความ ว่า กับ แล้ว ก็ หรือ แต่ นี้ นั้น คือ ถ้า ด้วย โดย จาก เพื่อ " +
    "ต้อง ไม่ อย่างไร อะไร ทำไม ไหม หรือไม่ บ้าง ครับ ค่ะ คะ ฉัน ผม คุณ เรา เขา มัน จึง ซึ่ง อยู่ ไป มา"
  ).split(" "),
);

let segmenter: Intl.Segmenter | null | undefined;

/** The words of one run, function words dropped; without a segmenter, the run whole (as before these scripts were cut). */
export function seaWords(run: string): string[] {
  segmenter ??= typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "word" }) : null;
  if (!segmenter) return [run];
  return [...segmenter.segment(run)].filter((s) => s.isWordLike && !TH_STOP_WORDS.has(s.segment)).map((s) => s.segment);
}

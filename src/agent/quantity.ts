/**
 * Whether a question asks for a quantity (how many, how long, how much): then a quote that holds
 * no number brings the passage's best sentence that does, or the best page's best passage that
 * does (extract.ts, retrieval.ts). Every language Parley indexes asks with a
 * handful of interrogatives; these are they, as a reader of each language writes them (accents
 * optional where people drop them). A language missing here answers as any other question does.
 */

const words = new Intl.Segmenter(undefined, { granularity: "word" });

// One word asks for a quantity on its own.
const QUANTITY_WORDS = new Set(
  (
    "combien cuanto cuanta cuantos cuantas cuánto cuánta cuántos cuántas quanto quanta quanti quante quantos " +
    "quantas hoeveel сколько скільки ile kolik koliko kaç hány mennyi meddig paljonko montako kuinka berapa " +
    "πόσο πόση πόσα πόσοι πόσες кількість كم כמה چند چقدر कितना कितने कितनी"
  ).split(" "),
);
// Two words ask together (English "how many", German "wie lange").
const QUANTITY_PAIRS = new Set(
  [
    "how many|how much|how long|how often|how big|how large|how old|how far|how fast|how soon",
    "wie viele|wie viel|wie lange|wie oft|wie groß|wie gross|hoe lang|hoe vaak|hoe groot",
    "hur många|hur mycket|hur länge|hur ofta|hvor mange|hvor meget|hvor mye|hvor længe|hvor lenge|hvor ofte",
    "как долго|как часто|ne kadar|bao nhiêu|bao lâu",
  ]
    .join("|")
    .split("|"),
);
// Scripts without spaces: the interrogative as written inside the sentence.
// 好几 and 十几 say "several" and "a dozen or so": no question.
const QUANTITY_RUNS =
  /多少|(?<![好十])几[个次天分秒年月周位种]?|多久|多长|多大|多快|いくつ|いくら|どれくらい|どのくらい|どれぐらい|何[日回分秒個件時年人円割週倍%％]|何パーセント|何[かヶカヵケ]月|몇|얼마|เท่าไร|เท่าไหร่|กี่/u;

export function asksForQuantity(question: string): boolean {
  if (QUANTITY_RUNS.test(question)) return true;
  const seen = [...words.segment(question.toLowerCase())].filter((w) => w.isWordLike).map((w) => w.segment);
  return seen.some((w, i) => QUANTITY_WORDS.has(w) || (i > 0 && QUANTITY_PAIRS.has(`${seen[i - 1]} ${w}`)));
}

/** Whether a sentence holds a number (any script's digits). */
export const holdsNumber = (text: string) => /\p{Nd}/u.test(text);

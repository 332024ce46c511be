/** Korean words meet whatever particle or ending they carry. */
import { describe, expect, test } from "bun:test";
import { cjkTerms, koreanStem } from "../../src/knowledge/cjk.ts";

describe("Korean words are indexed by their stems", () => {
  test("a particle or ending is dropped while two syllables remain; question endings are no terms", () => {
    expect(koreanStem("컴포넌트에서")).toBe("컴포넌트");
    expect(koreanStem("데이터를")).toBe("데이터");
    expect(koreanStem("컴포넌트로")).toBe(koreanStem("컴포넌트를"));
    // Verbs and adjectives on 하다 and 되다 meet their noun, whatever the ending.
    for (const w of ["입력한", "입력할", "입력하여", "입력합니다", "입력됩니다", "입력된", "입력되었습니다"])
      expect(koreanStem(w)).toBe("입력");
    expect(koreanStem("바뀌도록")).toBe(koreanStem("바뀌면"));
    // A formal -ㅂ니다 verb is its stem: 바뀝니다 meets 바뀌면, 없어집니다 meets 없어지나요.
    expect(koreanStem("바뀝니다")).toBe("바뀌");
    expect(koreanStem("없어집니다")).toBe(koreanStem("없어지나요"));
    // Two syllables stay: 버튼 is not cut to 버, nor 권한 (a noun ending in 한) to 권.
    expect(koreanStem("권한")).toBe("권한");
    expect(koreanStem("버튼")).toBe("버튼");
    expect(cjkTerms("어떻게").words).toEqual([]);
    expect(cjkTerms("저희는").words).toEqual([]); // a pronoun, whatever its particle
    expect(cjkTerms("컴포넌트에서").bigrams).toEqual(["컴포", "포넌", "넌트"]);
  });
});

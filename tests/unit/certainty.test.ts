import { describe, expect, test } from "bun:test";
import { certaintyOf, THIN_COVERAGE } from "../../src/agent/certainty.ts";

describe("certainty", () => {
  test("nothing found: no_sources; found but not cited: uncertain", () => {
    expect(certaintyOf([], 0)).toBe("no_sources");
    expect(certaintyOf([{ coverage: 1 }], 0)).toBe("uncertain");
  });

  test("cited: answered, unless even the best passage holds the question only thinly", () => {
    expect(certaintyOf([{ coverage: 0.9 }, { coverage: 0.3 }], 1)).toBe("answered");
    expect(certaintyOf([{ coverage: THIN_COVERAGE - 0.01 }], 1)).toBe("uncertain");
    expect(certaintyOf([{ coverage: THIN_COVERAGE }], 1)).toBe("answered");
    // Found by other means only (a model's own search call): the citation stands.
    expect(certaintyOf([{}], 2)).toBe("answered");
  });
});

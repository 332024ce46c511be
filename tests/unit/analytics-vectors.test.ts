import { describe, expect, test } from "bun:test";
import {
  CENTROID_TERMS,
  cosine,
  JOIN_SIMILARITY,
  nearest,
  topTerms,
  unit,
  withMember,
} from "../../src/analytics/vectors.ts";

describe("analytics term vectors", () => {
  test("cosine: 1 for the same direction, 0 for nothing shared, symmetric", () => {
    expect(cosine({ a: 1, b: 2 }, { a: 2, b: 4 })).toBeCloseTo(1);
    expect(cosine({ a: 1 }, { b: 1 })).toBe(0);
    expect(cosine({}, { a: 1 })).toBe(0);
    expect(cosine({ a: 1, b: 1 }, { a: 1 })).toBeCloseTo(cosine({ a: 1 }, { a: 1, b: 1 }));
  });

  test("a question joins the nearest topic at or above the bar, else none", () => {
    const q = unit({ cookie: 3, sign: 2 });
    const topics: { id: string; centroid: Record<string, number> }[] = [
      { id: "far", centroid: { route: 5 } },
      { id: "near", centroid: { cookie: 4, sign: 1 } },
      { id: "nearer", centroid: { cookie: 3, sign: 2, secret: 0.1 } },
    ];
    expect(nearest(q, topics)?.topic.id).toBe("nearer");
    expect(nearest(q, [topics[0]!])).toBeNull();
    // Exactly at the bar joins.
    expect(
      nearest({ a: 1, b: 0 }, [{ centroid: { a: JOIN_SIMILARITY, b: Math.sqrt(1 - JOIN_SIMILARITY ** 2) } }]),
    ).not.toBeNull();
  });

  test("a centroid sums its members and keeps its heaviest terms only", () => {
    let c = {};
    for (let i = 0; i < 100; i++) c = withMember(c, { [`t${i}`]: 1 + i / 100, shared: 1 });
    expect(Object.keys(c)).toHaveLength(CENTROID_TERMS);
    expect(topTerms(c, 1)).toEqual(["shared"]);
    expect((c as Record<string, number>).shared).toBe(100);
  });
});

import { describe, expect, test } from "bun:test";
import { parsePgArray, writePgArray } from "../../src/db/pg-arrays.ts";

describe("PostgreSQL array text form (postgres.js runs without fetch_types)", () => {
  test("quoting, escapes, NULL, nesting, empty arrays and lower bounds", () => {
    expect(parsePgArray('{"x,y",b,NULL,"q\\"\\\\z",""}')).toEqual(["x,y", "b", null, 'q"\\z', ""]);
    expect(parsePgArray("{{1,2},{3,4}}", Number)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(parsePgArray("{}")).toEqual([]);
    expect(parsePgArray("[0:1]={7,8}", Number)).toEqual([7, 8]);
    expect(parsePgArray('{"NULL"}')).toEqual(["NULL"]);
  });

  test("writing then reading gives the values back", () => {
    const values = ['a "quoted" \\ word', "NULL", null, "", "{braces}, commas"];
    expect(parsePgArray(writePgArray(values))).toEqual(values);
    expect(parsePgArray(writePgArray([[1, 2], [3]]), Number)).toEqual([[1, 2], [3]]);
  });
});

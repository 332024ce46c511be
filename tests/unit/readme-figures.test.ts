/**
 * README's measured figures (scripts/readme-figures.ts): the markers in the real README match the
 * measurements, and the tolerance rule holds on both sides of its edges.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIGURES } from "../../scripts/figure-measures.ts";
import { close, figuresIn, withFigures } from "../../scripts/readme-figures.ts";

const README = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");

describe("README's figures", () => {
  test("every marker names a measurement, and every measurement has exactly one marker", () => {
    const names = figuresIn(README).map((f) => f.name);
    expect(names.toSorted()).toEqual(Object.keys(FIGURES).toSorted());
  });

  test("no marker starts a line (a line starting with <!-- is an HTML block: it would break the paragraph)", () => {
    expect(README.split("\n").filter((l) => l.startsWith("<!-- figure:"))).toEqual([]);
  });

  test("--write replaces the named figures' text only, markers kept", () => {
    const doc = "a <!-- figure: x -->1 MB<!-- /figure --> b <!-- figure: y -->2 s<!-- /figure -->";
    const out = withFigures(doc, { x: "3 MB" });
    expect(out).toBe("a <!-- figure: x -->3 MB<!-- /figure --> b <!-- figure: y -->2 s<!-- /figure -->");
    expect(figuresIn(out)).toEqual([
      { name: "x", text: "3 MB" },
      { name: "y", text: "2 s" },
    ]);
  });

  test("sizes: within ±10% of the measurement, same unit", () => {
    expect(close("size", "126 MiB", "128 MiB")).toBe(true);
    expect(close("size", "115 MiB", "128 MiB")).toBe(false);
    expect(close("size", "141 MiB", "128 MiB")).toBe(false);
    expect(close("size", "40 KB", "89 KB")).toBe(false);
    expect(close("size", "94 MB", "133 MB")).toBe(false);
    expect(close("size", "133 MiB", "133 MB")).toBe(false);
    expect(close("size", "about", "133 MB")).toBe(false);
  });

  test("times: within a factor of 4 either way", () => {
    expect(close("time", "1.0 s", "3.9 s")).toBe(true);
    expect(close("time", "6.0 s", "1.6 s")).toBe(true);
    expect(close("time", "1.0 s", "4.1 s")).toBe(false);
    expect(close("time", "6.0 s", "1.4 s")).toBe(false);
    expect(close("time", "1.0 s", "1.0 ms")).toBe(false);
  });
});

/**
 * README's recipes (scripts/recipes.ts): each one in the real README has a run, and they are read
 * in README order — the order `--story` runs them in on one clone.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { recipes } from "../../scripts/recipe-kit.ts";
import { RUNS } from "../../scripts/recipe-runs.ts";

const README = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");

describe("README's recipes", () => {
  test("each has a run, and they are found in README order (the story's order)", () => {
    const names = [...recipes(README).keys()];
    expect(names.filter((n) => !RUNS[n])).toEqual([]);
    expect(names.slice(0, 3)).toEqual(["first-session", "operate", "kb-walkthrough"]);
    expect(names.indexOf("openai-clients")).toBeGreaterThan(names.indexOf("kb-walkthrough"));
  });

  test("a recipe's file block comes before the shell block that runs it", () => {
    const blocks = recipes(README).get("client-node")!;
    expect(blocks.map((b) => b.file ?? "sh")).toEqual(["demo.mjs", "sh"]);
  });
});

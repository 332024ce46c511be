/**
 * `bun scripts/recipes.ts --story`: README top to bottom, as one reader would run it — every recipe
 * in README order in ONE workspace (one clone, one `bun install`, one data folder that each
 * section finds as the sections before it left it), each with its own checks. A section that
 * breaks a later one (a revoked key reused, deleted sample documents, a server left running)
 * fails here though every recipe passes alone.
 */
import { rmSync } from "node:fs";
import { type Block, log, made, PORT, portFree, workspace } from "./recipe-kit.ts";
import { RUNS } from "./recipe-runs.ts";

/** Runs the story; returns the sections that failed (the others passed). */
export async function runStory(all: Map<string, Block[]>): Promise<string[]> {
  const t0 = performance.now();
  const ws = workspace("story");
  const failed: string[] = [];
  for (const [name, blocks] of all) {
    log(`story: ${name}`);
    try {
      const run = RUNS[name];
      if (!run) throw new Error(`README recipe ${name} has no run in scripts/recipe-runs.ts`);
      // No section may leave its server behind: the next one would talk to it, or fail to start its own.
      if (!(await portFree())) throw new Error(`port ${PORT} is in use before this section`);
      await run(blocks, ws);
      console.log(`### story ${name}: ok`);
    } catch (e) {
      failed.push(name);
      console.log(`### story ${name}: FAILED — ${(e as Error).message}`);
    }
  }
  const s = ((performance.now() - t0) / 1000).toFixed(0);
  console.log(`\n### the story: ${all.size} sections in ${s} s on one clone (${ws.clone})`);
  if (!failed.length) for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  return failed;
}

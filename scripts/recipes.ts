/**
 * `bun scripts/recipes.ts [name…]` (CI: .ci/run): README's recipes, run verbatim, each in a temp
 * folder outside the repository, on a fresh `git clone` of it (so: what is committed).
 * `bun scripts/recipes.ts --story`: all of them in README order on ONE clone, state carried over
 * (scripts/recipe-story.ts), so a section that breaks a later one fails.
 *
 * A recipe is a README code block preceded by `<!-- recipe: NAME -->` (shell, run in order as
 * one bash script) or `<!-- recipe: NAME file=PATH -->` (written to PATH). This script only adds
 * what a reader would do around them — start the server the recipe says is running, look at the
 * result, stop what was started — and checks what the recipe promises (scripts/recipe-runs.ts,
 * scripts/recipe-checks.ts). The transcript is stdout.
 * The recipes use port 3000: run by hand under `flock` (see /work/notes/guide.md or any lock file).
 *
 * Also checked (not in the story): `npm publish --dry-run` for the server and client packages
 * (names, no data/, no binary, no .git).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bash, log, made, PORT, portFree, ROOT, recipes, workspace } from "./recipe-kit.ts";
import { RUNS } from "./recipe-runs.ts";
import { runStory } from "./recipe-story.ts";

/** `npm publish --dry-run` of both packages: their names, and nothing that must not ship. */
async function publishDryRun(): Promise<void> {
  const { clone } = workspace("publish");
  await bash("bun install --silent && bun run build:client\n", clone);
  for (const dir of [clone, join(clone, "packages/client")]) {
    log(`npm publish --dry-run (${dir === clone ? "server" : "client"} package)`);
    const r = Bun.spawnSync(["npm", "publish", "--dry-run", "--ignore-scripts", "--json"], {
      cwd: dir,
      stderr: "pipe",
      stdout: "pipe",
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    const text = r.stdout.toString();
    const warnings = r.stderr
      .toString()
      .split("\n")
      .filter((l) => l.startsWith("npm warn") && !/nodedir|requires you to be logged in/.test(l));
    if (r.exitCode !== 0) throw new Error(`npm publish --dry-run failed:\n${r.stderr}`);
    const info = JSON.parse(text.slice(text.indexOf("{")));
    const pack = info[Object.keys(info)[0]!] ?? info;
    const files: string[] = (pack.files ?? []).map((f: { path: string }) => f.path);
    console.log(`${pack.name}@${pack.version}: ${files.length} files, ${pack.size} bytes packed`);
    const bad = files.filter((f) => /^(data|\.git)\//.test(f) || /^dist\/parley$/.test(f) || f.endsWith(".tgz"));
    if (bad.length) throw new Error(`the tarball contains ${bad.join(", ")}`);
    if (warnings.length) throw new Error(`npm warned:\n${warnings.join("\n")}`);
  }
}

async function perRecipe(all: ReturnType<typeof recipes>, wanted: string[]): Promise<number> {
  const names = wanted.length ? wanted : [...all.keys(), "publish"];
  let failed = 0;
  for (const name of names) {
    log(`recipe ${name}`);
    try {
      if (name === "publish") await publishDryRun();
      else {
        const blocks = all.get(name);
        const run = RUNS[name];
        if (!blocks || !run) throw new Error(`no recipe ${name} in README.md or scripts/recipe-runs.ts`);
        if (!(await portFree())) throw new Error(`port ${PORT} is in use: the recipes need it`);
        await run(blocks, workspace(name));
      }
      console.log(`### recipe ${name}: ok`);
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      failed++;
      console.log(`### recipe ${name}: FAILED — ${(e as Error).message}`);
    }
  }
  console.log(`recipes: ${names.length - failed} passed, ${failed} failed`);
  return failed;
}

if (import.meta.main) {
  const all = recipes(readFileSync(join(ROOT, "README.md"), "utf8"));
  const args = process.argv.slice(2);
  // Every README recipe is run (one without a run in scripts/recipe-runs.ts fails).
  let failed: number;
  if (args.includes("--story")) {
    failed = (await runStory(all)).length;
    // The same closing line as the per-recipe run, so .ci/run counts the story's sections too.
    console.log(`recipes: ${all.size - failed} passed, ${failed} failed (the story, one clone)`);
  } else failed = await perRecipe(all, args);
  process.exit(failed ? 1 : 0);
}

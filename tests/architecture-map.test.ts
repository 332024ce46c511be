/**
 * The map, docs/architecture.md, kept true: every file path it names exists, and it describes
 * every folder under src/ and every table of the schema. Each rule is a function run on the real
 * document and on a deliberate breach (so the rule itself can fail).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { getTableName, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import * as schema from "../src/db/schema.ts";
import * as knowledgeSchema from "../src/db/schema-knowledge.ts";

const ROOT = join(import.meta.dir, "..");
const MAP = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
const EXTENSIONS = "ts|md|json|sql|js|toml|png|tsx";

/** Every file under the repository's own folders (no node_modules, no .git), by relative path. */
function repositoryFiles(): string[] {
  const out: string[] = [];
  for (const top of [
    "src",
    "tests",
    "docs",
    "scripts",
    "bench",
    "eval",
    "drizzle",
    "console",
    "packages",
    "vendor",
    ".ci",
  ]) {
    if (!existsSync(join(ROOT, top))) continue;
    for (const f of readdirSync(join(ROOT, top), { recursive: true, encoding: "utf8" }))
      if (!f.includes("node_modules")) out.push(`${top}/${f}`);
  }
  for (const f of readdirSync(ROOT)) if (statSync(join(ROOT, f)).isFile()) out.push(f);
  return out;
}

/**
 * The paths `doc` names that exist nowhere: a path with a folder is looked up from the
 * repository root, src/, tests/ and docs/ (links are relative to docs/); a bare file name must be
 * some file's name.
 */
export function missingPaths(doc: string, files: string[]): string[] {
  const all = new Set(files);
  const names = new Set(files.map((f) => basename(f)));
  const found = new Set<string>();
  const pattern = new RegExp(`(?<![\\w/.-])((?:\\.\\./)?(?:[\\w.-]+/)*[\\w-]+\\.(?:${EXTENSIONS}))(?![\\w/])`, "g");
  for (const m of doc.matchAll(pattern)) found.add(m[1]!);
  return [...found].filter((path) => {
    if (!path.includes("/")) return !names.has(path);
    const plain = path.replace(/^\.\.\//, "");
    return ![plain, `src/${plain}`, `tests/${plain}`, `docs/${plain}`].some((p) => all.has(p));
  });
}

/** The folders under src/ the doc does not name as `folder/`. */
export function undescribedFolders(doc: string, folders: string[]): string[] {
  return folders.filter((f) => !doc.includes(`${f}/`));
}

/** The tables the doc's "Tables and their writers" section does not name. */
export function undescribedTables(doc: string, tables: string[]): string[] {
  const section = doc.split(/^## Tables and their writers$/m)[1]?.split(/^## /m)[0] ?? "";
  return tables.filter((t) => !new RegExp(`\`${t}\``).test(section));
}

const srcFolders = () =>
  readdirSync(join(ROOT, "src"), { recursive: true, withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(d.parentPath, d.name).slice(join(ROOT, "src").length + 1));

const tableNames = () =>
  [...Object.values(schema), ...Object.values(knowledgeSchema)]
    .filter((v) => is(v, PgTable))
    .map((t) => getTableName(t as PgTable));

describe("docs/architecture.md", () => {
  test("every path it names exists (package names such as postgres.js aside)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const packages = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, "postgres.js": 1 }));
    expect(missingPaths(MAP, repositoryFiles()).filter((p) => !packages.has(p))).toEqual([]);
  });

  test("it describes every folder under src/", () => {
    expect(undescribedFolders(MAP, srcFolders())).toEqual([]);
  });

  test("its tables section names every table of the schema", () => {
    expect(tableNames().length).toBeGreaterThan(10);
    expect(undescribedTables(MAP, tableNames())).toEqual([]);
  });

  test("each rule fails on a deliberate breach", () => {
    const files = ["src/auth/admit.ts", "docs/api.md", "README.md"];
    expect(missingPaths("see `auth/admit.ts`, [api](../docs/api.md) and `http/gone.ts`, `nowhere.ts`", files)).toEqual([
      "http/gone.ts",
      "nowhere.ts",
    ]);
    expect(undescribedFolders("auth/ and chat/", ["auth", "chat", "mcp"])).toEqual(["mcp"]);
    const doc = "## Tables and their writers\n- `messages`: replies/\n## Next\n`usage_daily`";
    expect(undescribedTables(doc, ["messages", "usage_daily"])).toEqual(["usage_daily"]);
  });
});

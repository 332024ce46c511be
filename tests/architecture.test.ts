/**
 * The dependency direction of docs/architecture.md, checked on every import under src/: a lower
 * layer never imports a higher one. contract (imports nothing) → db, config → generic http →
 * features → composition (app/, mod.ts) → runtime (runtime/, main.ts, server.ts).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { getTableName, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import * as schema from "../src/db/schema.ts";
import * as knowledgeSchema from "../src/db/schema-knowledge.ts";

const SRC = join(import.meta.dir, "../src");

/** Layers, lowest first; a file may import its own layer or lower ones. */
const LAYERS = ["contract", "base", "http", "feature", "composition", "runtime"] as const;
type Layer = (typeof LAYERS)[number] | "client";

const FEATURES = [
  "agent",
  "analytics",
  "backup",
  "auth",
  "chat",
  "conversations",
  "feedback",
  "knowledge",
  "mcp",
  "openai-compat",
  "ratelimit",
  "replies",
  "sources",
  "usage",
  "widget",
];

/** Feature folders whose only door for other folders is their index.ts: every one. */
const FRONT_DOORS = FEATURES;

/**
 * Each table's one writer folder (docs/architecture.md, "Tables and their writers"). A write that
 * must be atomic with another folder's statement is that owner's fragment, passed in: `ReplyWrite`
 * (conversations/ and chat/ into replies/'s statements) and `RefusalCount` (usage/ into the gate).
 */
const TABLE_WRITERS: Record<string, string[]> = {
  api_keys: ["auth"],
  key_knowledge_bases: ["auth"],
  setup_codes: ["auth"],
  rate_limits: ["ratelimit"],
  usage_daily: ["usage"],
  conversations: ["conversations"],
  // User messages (conversations/), assistant messages and their run columns (replies/).
  messages: ["conversations", "replies"],
  message_events: ["replies"],
  message_feedback: ["feedback"],
  idempotency_keys: ["chat"],
  instance_secrets: ["db"],
  knowledge_bases: ["knowledge"],
  documents: ["knowledge"],
  chunks: ["knowledge"],
  // Kept by triggers on chunks (drizzle/0006, 0024), in knowledge/'s own statements; the store-wide
  // pair is no longer written and stays one release for rolling deploys.
  knowledge_terms: ["knowledge"],
  knowledge_stats: ["knowledge"],
  knowledge_base_terms: ["knowledge"],
  knowledge_base_stats: ["knowledge"],
  sources: ["sources"],
  source_syncs: ["sources"],
  source_pages: ["sources"],
  visitor_rate_limits: ["ratelimit"],
  spent_proofs: ["widget"],
  analytics_questions: ["analytics"],
  analytics_topics: ["analytics"],
};

/** The schema's tables by the name of their drizzle variable. */
const TABLE_VARS = new Map(
  Object.entries({ ...schema, ...knowledgeSchema })
    .filter(([, v]) => is(v, PgTable))
    .map(([name, v]) => [name, getTableName(v as PgTable)]),
);

/** The tables `source` writes: drizzle's insert/update/delete on a table, or SQL naming one. */
export function tablesWritten(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(/\.(?:insert|update|delete)\(\s*(\w+)\s*\)/g)) found.add(TABLE_VARS.get(m[1]!) ?? "");
  for (const m of source.matchAll(/\b(?:insert\s+into|update|delete\s+from)\s+(?:\$\{\s*(\w+)\s*\}|"?(\w+)"?)/gi))
    found.add(m[1] ? (TABLE_VARS.get(m[1]) ?? "") : m[2]!);
  return [...found].filter((t) => Object.hasOwn(TABLE_WRITERS, t)).sort();
}

/** What is wrong with src/`file` writing its tables, if anything. */
export function writerViolations(file: string, source: string): string[] {
  const folder = file.split("/")[0]!;
  return tablesWritten(source)
    .filter((t) => !TABLE_WRITERS[t]!.includes(folder))
    .map((t) => `src/${file} writes ${t}, owned by ${TABLE_WRITERS[t]!.join(", ")}/`);
}

/** The most lines a file under src/ may have (docs/architecture.md: files of one job). */
const MAX_LINES = 250;

/** The layer of a path relative to src/ ("chat/run.ts"). */
export function layerOf(path: string): Layer {
  const top = path.split("/")[0]!;
  if (top === "contract") return "contract";
  if (top === "db" || top === "config" || top === "metrics" || top === "tracing" || path === "primitives.ts")
    return "base";
  if (top === "http") return "http";
  if (FEATURES.includes(top)) return "feature";
  if (top === "app" || path === "mod.ts") return "composition";
  if (top === "runtime" || path === "main.ts" || path === "server.ts") return "runtime";
  if (top === "client") return "client";
  throw new Error(
    `src/${path} belongs to no layer: add its folder to tests/architecture.test.ts and docs/architecture.md`,
  );
}

/** The specifiers a file imports or re-exports (static and dynamic). */
export function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    found.push((m[1] ?? m[2] ?? m[3])!);
  }
  return found;
}

/**
 * Runtime modules library code may load with `import()` at run time: each reaches for the API of
 * the runtime running it (Bun's FFI, Deno's file locks) only once loaded, so the library stays
 * Web-standard (docs/architecture.md). Never imported statically from below runtime/.
 */
export const RUNTIME_CHOSEN = ["runtime/folder-lock.ts"];

/** The specifiers `source` imports statically (an import() is not one of them). */
export const staticImportsOf = (source: string) => importsOf(source.replace(/\bimport\(\s*["'][^"']+["']\s*\)/g, ""));

/** What is wrong with `from` (a path under src/) importing `spec`, if anything. */
export function violation(from: string, spec: string, dynamic = false): string | null {
  const source = layerOf(from);
  if (!spec.startsWith(".")) {
    // The contract ships as the client's .d.ts: no package, not even a type from one.
    return source === "contract" ? `src/${from} imports the package ${spec}: the contract imports nothing` : null;
  }
  const target = relative(SRC, resolve(SRC, dirname(from), spec));
  if (target.startsWith(".."))
    return source === "contract" || source === "client" ? `src/${from} imports ${spec} outside src/` : null;
  const to = layerOf(target);
  if (dynamic && source !== "client" && source !== "contract" && RUNTIME_CHOSEN.includes(target)) return null;
  if (source === "client") {
    // The client package carries only itself and the contract.
    return to === "client" || to === "contract" ? null : `src/${from} (client) imports src/${target}`;
  }
  if (to === "client") return `src/${from} imports the client src/${target}`;
  return LAYERS.indexOf(to) > LAYERS.indexOf(source) ? `src/${from} (${source}) imports src/${target} (${to})` : null;
}

const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter(
  (f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"),
);

describe("dependency direction", () => {
  test("every import under src/ points down (or sideways) the layers", () => {
    const problems = files.flatMap((f) => {
      const source = readFileSync(join(SRC, f), "utf8");
      const statics = new Set(staticImportsOf(source));
      return importsOf(source)
        .map((spec) => violation(f, spec, !statics.has(spec)))
        .filter((p): p is string => p !== null);
    });
    expect(problems).toEqual([]);
  });

  test("feature folders import each other without cycles", () => {
    const edges = new Map<string, Set<string>>();
    for (const f of files.filter((f) => layerOf(f) === "feature")) {
      for (const spec of importsOf(readFileSync(join(SRC, f), "utf8")).filter((s) => s.startsWith("."))) {
        const target = relative(SRC, resolve(SRC, dirname(f), spec));
        const [from, to] = [f.split("/")[0]!, target.split("/")[0]!];
        if (from !== to && layerOf(target) === "feature") edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    expect(cycles(edges)).toEqual([]);
    expect(
      cycles(
        new Map([
          ["auth", new Set(["ratelimit"])],
          ["ratelimit", new Set(["auth"])],
        ]),
      ),
    ).toEqual(["auth -> ratelimit -> auth"]);
  });

  test("the checker sees what it claims to", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(
      importsOf(
        `import { a } from "./a.ts";\nimport type {\n  B,\n} from "../b.ts";\nexport * from "./c.ts";\nimport "./d.ts";\nawait import("./e.ts");`,
      ),
    ).toEqual(["./a.ts", "../b.ts", "./c.ts", "./d.ts", "./e.ts"]);
    expect(violation("http/core.ts", "../chat/run.ts")).toContain("(http) imports src/chat/run.ts (feature)");
    expect(violation("db/errors.ts", "../http/errors.ts")).toContain("(base) imports");
    expect(violation("chat/run.ts", "../app/app.ts")).toContain("(feature) imports");
    expect(violation("app/app.ts", "../runtime/store.ts")).toContain("(composition) imports");
    expect(violation("mod.ts", "./server.ts")).toContain("(runtime)");
    expect(violation("contract/events.ts", "elysia")).toContain("the contract imports nothing");
    expect(violation("contract/events.ts", "../db/schema.ts")).toContain("(contract) imports");
    expect(violation("chat/run.ts", "../client/index.ts")).toContain("imports the client");
    // A runtime-chosen module: loaded with import() only.
    expect(violation("db/client.ts", "../runtime/folder-lock.ts", true)).toBeNull();
    expect(violation("db/client.ts", "../runtime/folder-lock.ts")).toContain("(base) imports");
    expect(violation("db/client.ts", "../runtime/lock.ts", true)).toContain("(base) imports");
    expect(staticImportsOf(`import { a } from "./a.ts";\nawait import("./e.ts");`)).toEqual(["./a.ts"]);
    // Down and sideways are fine.
    expect(violation("runtime/admin.ts", "../app/app.ts")).toBeNull();
    expect(violation("chat/run.ts", "../replies/index.ts")).toBeNull();
    expect(violation("http/errors.ts", "../contract/errors.ts")).toBeNull();
  });
});

describe("table writers", () => {
  test("every table of the schema has its owner listed", () => {
    expect([...TABLE_VARS.values()].filter((t) => !Object.hasOwn(TABLE_WRITERS, t))).toEqual([]);
  });

  test("each table is written only by its owner folder", () => {
    const problems = files
      .filter((f) => !f.endsWith(".gen.ts"))
      .flatMap((f) => writerViolations(f, readFileSync(join(SRC, f), "utf8")));
    expect(problems).toEqual([]);
  });

  test("the rule sees a breach: drizzle calls and SQL text alike", () => {
    expect(writerViolations("http/cursor.ts", "await db.insert(instanceSecrets).values(x)")).toEqual([
      "src/http/cursor.ts writes instance_secrets, owned by db/",
    ]);
    expect(writerViolations("auth/x.ts", "sql`update ${rateLimits} set n = 1`; sql`delete from usage_daily`")).toEqual([
      "src/auth/x.ts writes rate_limits, owned by ratelimit/",
      "src/auth/x.ts writes usage_daily, owned by usage/",
    ]);
    expect(writerViolations("usage/counts.ts", "db.insert(usageDaily)")).toEqual([]);
  });
});

describe("shape", () => {
  test(`no file under src/ is longer than ${MAX_LINES} lines (generated ones excepted)`, () => {
    const long = files
      .filter((f) => !f.endsWith(".gen.ts"))
      .map((f) => ({ file: f, lines: readFileSync(join(SRC, f), "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  test("other folders reach a feature folder only through its front door (index.ts)", () => {
    const problems = files.flatMap((f) =>
      importsOf(readFileSync(join(SRC, f), "utf8"))
        .filter((spec) => spec.startsWith("."))
        .map((spec) => relative(SRC, resolve(SRC, dirname(f), spec)))
        .filter((target) => {
          const folder = target.split("/")[0]!;
          return FRONT_DOORS.includes(folder) && f.split("/")[0] !== folder && target !== `${folder}/index.ts`;
        })
        .map((target) => `src/${f} imports src/${target}`),
    );
    expect(problems).toEqual([]);
  });
});

/** The cycles of a folder graph, each as "a -> b -> a" (one per back edge found). */
function cycles(edges: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    if (path.includes(node)) return void found.push([...path.slice(path.indexOf(node)), node].join(" -> "));
    if (done.has(node)) return;
    for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of [...edges.keys()].sort()) visit(node, []);
  return found;
}

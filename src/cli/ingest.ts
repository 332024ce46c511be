/** `ingest PATH...`: .jsonl files, .md/.txt files, or folders of them. Bad lines are reported and skipped. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import type { Store } from "../db/client.ts";
import { type KnowledgeDoc, type ParseProblem, parseJsonl, parseMarkdown } from "../knowledge/parse.ts";
import { ingestDocuments } from "../knowledge/service.ts";
import { isStoreUnavailable, sqlState } from "../http/errors.ts";

const KINDS = new Set([".jsonl", ".md", ".markdown", ".txt"]);

function files(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (KINDS.has(extname(name)) || statSync(join(path, name)).isDirectory() ? files(join(path, name)) : []));
}

export async function ingestCommand(store: Store, paths: string[]): Promise<number> {
  if (paths.length === 0) {
    console.error("usage: ingest PATH... (.jsonl, .md, .txt files or folders)");
    return 2;
  }
  const docs: KnowledgeDoc[] = [];
  const problems: ParseProblem[] = [];
  for (const path of paths.flatMap(files)) {
    const text = readFileSync(path, "utf8");
    if (extname(path) === ".jsonl") {
      const r = parseJsonl(text, path);
      docs.push(...r.docs);
      problems.push(...r.problems);
    } else if (KINDS.has(extname(path))) {
      const r = parseMarkdown(text, path);
      if (r.doc) docs.push(r.doc);
      if (r.problem) problems.push(r.problem);
    } else {
      problems.push({ where: path, reason: "unsupported file type (use .jsonl, .md or .txt)" });
    }
  }
  for (const p of problems) console.error(`skipped ${p.where}: ${p.reason}`);
  let failed = 0;
  const n = await ingestDocuments(store.db, docs, {
    // Only the SQLSTATE and message: a driver error's full text can carry the query's parameters.
    onError: (doc, error) => {
      if (isStoreUnavailable(error) || isStoreUnavailable((error as { cause?: unknown }).cause)) throw error;
      failed++;
      const e = error as { code?: string; cause?: { code?: string; message?: string }; message?: string };
      console.error(`failed ${doc.url}: ${e.cause?.message ?? e.message ?? String(error)}${sqlState(error) ? ` (${sqlState(error)})` : ""}`);
    },
  });
  const skipped = problems.length + failed;
  console.log(`ingested ${n} document(s)${skipped ? `, skipped ${skipped}` : ""}`);
  return failed && n === 0 ? 1 : 0;
}

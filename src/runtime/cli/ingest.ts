/**
 * `ingest [--kb NAME] [--base-url URL [--url-style S]] PATH...`: .jsonl files, .md/.txt/.html
 * files, PDFs, OpenAPI specs (.json/.yaml/.yml), or folders of them, into a knowledge base
 * (default: `default`) — parsed and stored by the same services as the HTTP uploads. Bad lines
 * are reported and skipped. A file whose front matter names no `url` (a PDF or a spec has none)
 * gets the address a docs site serves it at (knowledge/docs-url.ts). In a folder, a .json or
 * .yaml file that is not an OpenAPI spec is someone's configuration: passed over, not reported.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, extname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import type { Store } from "../../db/client.ts";
import { isStoreUnavailable, sqlState } from "../../db/errors.ts";
import {
  docsBase,
  type FileSource,
  formatOf,
  ingestDocuments,
  isUrlStyle,
  type KnowledgeDoc,
  knowledgeBaseIdsByName,
  looksLikeOpenApi,
  type ParseProblem,
  parseFile,
  parseJsonl,
  parseOpenApi,
  parsePdf,
  URL_STYLES,
  utf8,
} from "../../knowledge/index.ts";
import { INGEST_OPTIONS } from "./args.ts";
import { consoleIo, type Io } from "./io.ts";

const KINDS = new Set([".jsonl", ".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".json", ".yaml", ".yml"]);

const USAGE = `usage: ingest [--kb NAME] [--base-url URL [--url-style ${URL_STYLES.join("|")}]] PATH...
  (.jsonl, .md, .txt, .html, .pdf, OpenAPI .json/.yaml files or folders; --base-url: the address the folder is served at)`;

/** What a file without a URL is told to add. */
const BASE_URL_HINT = "pass --base-url with the address this folder is served at, e.g. https://docs.example.com/";

/** `--base-url` and `--url-style`, checked before any file is read: a typo is one error, not one per file. */
function fileSource(baseUrl: string | undefined, urlStyle: string | undefined): FileSource {
  if (urlStyle !== undefined && !isUrlStyle(urlStyle))
    throw new Error(`--url-style must be one of ${URL_STYLES.join(", ")}`);
  if (baseUrl === undefined) {
    if (urlStyle !== undefined) throw new Error("--url-style applies to --base-url: pass both");
    return {};
  }
  const checked = docsBase(baseUrl);
  if ("reason" in checked) throw new Error(`--base-url: ${checked.reason}`);
  return { baseUrl, urlStyle };
}

/**
 * The files under `path` (itself, if it is a file), sorted. Symlinks are followed, but a folder
 * already being walked (a symlink loop) or already walked (two links to one folder) is reported
 * and skipped, as is an entry that cannot be read (a broken link); the rest still load.
 * A path named on the command line that does not exist is an error, as a typo should be.
 */
function files(path: string, problems: ParseProblem[], seen = new Set<string>(), top = true): string[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    if (top) throw e;
    problems.push({
      where: path,
      reason: `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    });
    return [];
  }
  if (!isDir) return [path];
  const real = realpathSync(path);
  if (seen.has(real)) {
    problems.push({ where: path, reason: `folder already read as ${real} (a symlink loop or a second link to it)` });
    return [];
  }
  seen.add(real);
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      if (KINDS.has(extname(name))) return files(child, problems, seen, false);
      let dir = false;
      try {
        dir = statSync(child).isDirectory();
      } catch {
        // A broken link or an unreadable entry with no known extension: not ours to load.
      }
      return dir ? files(child, problems, seen, false) : [];
    });
}

/**
 * A large ingest says how far it is on stderr: once after its first batch (so that it is seen to
 * be working), then at most every PROGRESS_MS, never for the last document (the summary follows).
 */
const PROGRESS_MS = 2_000;
function progressLine(total: number, io: Io): () => void {
  let stored = 0;
  let last = 0;
  let queued = false;
  const print = () => {
    queued = false;
    if (stored === total) return;
    last = Date.now();
    io.err(`ingest: ${stored} of ${total} document(s) stored`);
  };
  return () => {
    stored++;
    // A batch's documents are reported together: the line is printed after the batch's last one.
    if (queued || (last !== 0 && Date.now() - last < PROGRESS_MS)) return;
    queued = true;
    queueMicrotask(print);
  };
}

/**
 * Loads the documents under `paths`. `signal` stops it between batches: the documents already
 * stored stay (run it again for the rest; a URL already present is replaced), and it answers 130.
 */
export async function ingestCommand(
  store: Store,
  argv: string[],
  io: Io = consoleIo,
  signal?: AbortSignal,
): Promise<number> {
  const { values, positionals: paths } = parseArgs({ args: argv, allowPositionals: true, options: INGEST_OPTIONS });
  if (paths.length === 0) {
    io.err(USAGE);
    return 2;
  }
  const source = fileSource(values["base-url"], values["url-style"]);
  const [kbId] = await knowledgeBaseIdsByName(store.db, [values.kb ?? "default"]);
  const docs: KnowledgeDoc[] = [];
  const problems: ParseProblem[] = [];
  const seen = new Set<string>();
  const found = paths.flatMap((root) =>
    // A file's address is its path under the folder named here (a file named alone: its name).
    files(root, problems, seen).map((path) => ({
      path,
      relativePath: relative(root, path) || basename(path),
      named: path === root,
    })),
  );
  for (const { path, relativePath, named } of found) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      problems.push({
        where: path,
        reason: `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      });
      continue;
    }
    const format = formatOf(path);
    const options = { ...source, relativePath, baseUrlHint: BASE_URL_HINT };
    if (format === "pdf") {
      try {
        const r = await parsePdf(bytes, path, options);
        docs.push(...r.docs);
        problems.push(...r.problems);
      } catch (e) {
        problems.push({ where: path, reason: `could not be read (${(e as Error).name}: ${(e as Error).message})` });
      }
      continue;
    }
    // The HTTP uploads' rule: text that is not UTF-8 is refused, never repaired.
    const text = utf8(bytes);
    if (text === null) {
      problems.push({ where: path, reason: "not valid UTF-8" });
      continue;
    }
    try {
      if (format === "openapi") {
        if (!named && !looksLikeOpenApi(text)) continue;
        const r = parseOpenApi(text, path, options);
        docs.push(...r.docs);
        problems.push(...r.problems);
      } else if (extname(path) === ".jsonl") {
        const r = parseJsonl(text, path);
        docs.push(...r.docs);
        problems.push(...r.problems);
      } else if (KINDS.has(extname(path))) {
        const r = parseFile(text, path, options);
        if (r.doc) docs.push(r.doc);
        if (r.problem) problems.push(r.problem);
      } else {
        problems.push({
          where: path,
          reason: "unsupported file type (use .jsonl, .md, .txt, .html, .pdf or OpenAPI .json/.yaml)",
        });
      }
    } catch (e) {
      // Whatever a parser throws (a stack overflow, a bug) skips this file, not the whole ingest.
      problems.push({ where: path, reason: `could not be read (${(e as Error).name}: ${(e as Error).message})` });
    }
  }
  for (const p of problems) io.err(`skipped ${p.where}: ${p.reason}`);
  let failed = 0;
  const progress = progressLine(docs.length, io);
  const n = await ingestDocuments(store.db, docs, {
    kbId,
    signal,
    onStored: progress,
    // Only the SQLSTATE and message: a driver error's full text can carry the query's parameters.
    onError: (doc, error) => {
      if (isStoreUnavailable(error)) throw error;
      failed++;
      const e = error as { code?: string; cause?: { code?: string; message?: string }; message?: string };
      io.err(
        `failed ${doc.url}: ${e.cause?.message ?? e.message ?? String(error)}${sqlState(error) ? ` (${sqlState(error)})` : ""}`,
      );
    },
  });
  if (signal?.aborted) {
    io.err(`ingest stopped: ${n} document(s) stored before the interrupt`);
    return 130;
  }
  const skipped = problems.length + failed;
  if (found.length === 0)
    io.err(`nothing to ingest: no .jsonl, .md, .txt, .html, .pdf or OpenAPI files in ${paths.join(", ")}`);
  io.out(`ingested ${n} document(s)${skipped ? `, skipped ${skipped}` : ""}`);
  // Nothing stored is a failure (a script should notice), whatever the reason each file gives.
  return n === 0 ? 1 : 0;
}

/**
 * `bun run eval [corpus.jsonl[,more.jsonl…] | sample] [questions.jsonl]`: ingests a corpus (or
 * the built-in 6-document sample) into a fresh in-memory PGlite (or the empty PostgreSQL
 * database in DATABASE_URL), asks every question through the search the agent uses, and prints
 * page-level top-1, top-3 and MRR with the misses, and the abstentions: in-scope questions
 * refused (no passage returned) and off-topic questions refused. EVAL_LANGUAGE sets the search
 * language (default: the documents' commonest). Question sets live in eval/sets/.
 * A question line is {"question": "...", "urls": ["https://..."]}: a hit is a result whose
 * document URL is one of them. Questions alternate between halves A and B (A = even lines) so
 * parameters can be chosen on one half and checked on the other. A question with no URLs is
 * off-topic: the right answer is none (abstention), counted apart.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { isLanguage, LANGUAGES } from "../src/knowledge/language.ts";
import { parseJsonl } from "../src/knowledge/parse.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { SAMPLE_DOCS } from "../src/knowledge/sample.ts";
import type { SearchOptions } from "../src/knowledge/search.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const corpusPath = process.argv[2] ?? here("../../shared/corpora/elysia-docs.jsonl");
const questionsPath = process.argv[3] ?? here("./sets/elysia-en.jsonl");
const language = process.env.EVAL_LANGUAGE;
if (language !== undefined && !isLanguage(language))
  throw new Error(`EVAL_LANGUAGE must be one of ${LANGUAGES.join(", ")}`);

interface Question {
  question: string;
  urls: string[];
}
const questions: Question[] = readFileSync(questionsPath, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l, i) => {
    const q = JSON.parse(l) as Question;
    if (typeof q.question !== "string" || !Array.isArray(q.urls))
      throw new Error(`${questionsPath}:${i + 1}: needs question and urls`);
    return { question: q.question, urls: q.urls.map((u) => new URL(u).href) };
  });

// EVAL_OPTIONS='[{"k1":1.2},{"k1":2}]': ranking options to compare (summaries only when several).
const optionSets: SearchOptions[] = (
  process.env.EVAL_OPTIONS ? [JSON.parse(process.env.EVAL_OPTIONS)].flat() : [{}]
).map((o: SearchOptions) => ({ ...o, language }));

const store = process.env.DATABASE_URL ? openPostgres(process.env.DATABASE_URL) : await openPglite();
try {
  await migrate(store);
  const parsed =
    corpusPath === "sample"
      ? [{ docs: SAMPLE_DOCS, problems: [] }]
      : corpusPath.split(",").map((p) => parseJsonl(readFileSync(p, "utf8"), p));
  const docs = parsed.flatMap((p) => p.docs);
  const problems = parsed.flatMap((p) => p.problems);
  const t0 = performance.now();
  await ingestDocuments(store.db, docs);
  console.log(
    `corpus: ${docs.length} documents (${problems.length} bad lines) ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log(`questions: ${questions.length} from ${questionsPath}\n`);

  for (const options of optionSets) await evaluate(options, optionSets.length > 1);
} finally {
  await store.close();
}

async function evaluate(options: SearchOptions, brief: boolean) {
  type Row = { half: "A" | "B"; rank: number; q: Question; pages: string[]; ms: number };
  type Off = { half: "A" | "B"; q: Question; pages: string[] };
  const rows: Row[] = [];
  const offTopic: Off[] = [];
  for (const q of questions) {
    const t = performance.now();
    const hits = await searchPassages(store.db, q.question, [], options);
    const ms = performance.now() - t;
    const pages = [...new Set(hits.map((h) => h.url))];
    if (q.urls.length === 0) {
      offTopic.push({ half: offTopic.length % 2 === 0 ? "A" : "B", q, pages });
      continue;
    }
    const at = pages.findIndex((u) => q.urls.includes(u));
    rows.push({ half: rows.length % 2 === 0 ? "A" : "B", rank: at < 0 ? 0 : at + 1, q, pages, ms });
  }

  const figures = (half?: "A" | "B") => {
    const rs = rows.filter((r) => !half || r.half === half);
    const off = offTopic.filter((o) => !half || o.half === half);
    const n = rs.length || 1;
    return {
      questions: rs.length,
      top1: rs.filter((r) => r.rank === 1).length / n,
      top3: rs.filter((r) => r.rank >= 1 && r.rank <= 3).length / n,
      mrr: rs.reduce((s, r) => s + (r.rank ? 1 / r.rank : 0), 0) / n,
      inScopeRefused: `${rs.filter((r) => r.pages.length === 0).length}/${rs.length}`,
      offTopicRefused: `${off.filter((o) => o.pages.length === 0).length}/${off.length}`,
    };
  };
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const summary = (half?: "A" | "B") => {
    const f = figures(half);
    return `top-1 ${pct(f.top1)}  top-3 ${pct(f.top3)}  MRR ${f.mrr.toFixed(3)}  in-scope refused ${f.inScopeRefused}  off-topic refused ${f.offTopicRefused}`;
  };
  const answered = offTopic.filter((o) => o.pages.length > 0);
  if (brief) {
    console.log(`${JSON.stringify(options)}\n  all ${summary()}\n  A   ${summary("A")}\n  B   ${summary("B")}`);
    return;
  }
  const short = (u: string) => u.replace(/^https?:\/\/[^/]+/, "");
  console.log("misses (answering page not first):");
  for (const r of rows.filter((r) => r.rank !== 1)) {
    console.log(`  [${r.half}] ${r.rank ? `rank ${r.rank}` : "not found"}: ${r.q.question}`);
    console.log(`       want ${r.q.urls.map(short).join(" | ")}`);
    console.log(`       got  ${r.pages.slice(0, 3).map(short).join(", ") || "(nothing)"}`);
  }
  for (const r of rows.filter((r) => r.pages.length === 0)) console.log(`  in-scope but refused: ${r.q.question}`);
  for (const o of answered)
    console.log(`  off-topic but answered: ${o.q.question} → ${o.pages.slice(0, 3).map(short).join(", ")}`);
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  console.log(`\nall      ${summary()}`);
  console.log(`half A   ${summary("A")}`);
  console.log(`half B   ${summary("B")}`);
  // One line a table can be built from (eval/README.md).
  console.log(
    `RESULT ${JSON.stringify({ store: store.kind, questions: questionsPath.split("/").at(-1), all: figures(), B: figures("B") })}`,
  );
  console.log(
    `latency  p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms (${store.kind})`,
  );
}

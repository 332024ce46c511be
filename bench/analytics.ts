/**
 * `bun run bench:analytics`: analytics over 10,000 questions (BENCH_QUESTIONS) on PGlite, the
 * embedded store (the slower of the two): how fast ended replies are copied in and placed in
 * topics (ingest.ts), and how long each report takes over the whole period (median of 5). The
 * questions are generated from the fixture knowledge base's headings in three languages'
 * phrasings plus off-topic ones, so topics, gaps and pages all have work to do.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { ingestPending } from "../src/analytics/index.ts";
import { pagesReport } from "../src/analytics/pages.ts";
import { listQuestions } from "../src/analytics/questions.ts";
import { listTopics } from "../src/analytics/topics.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { openPglite } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { rowsOf } from "../src/db/rows.ts";
import { DEFAULT_KB_ID } from "../src/db/schema.ts";
import { ingestDocuments } from "../src/knowledge/index.ts";
import { newId } from "../src/primitives.ts";

const N = Number(process.env.BENCH_QUESTIONS ?? 10_000);
const ROOT = join(import.meta.dir, "..");

const docs = readFileSync(join(ROOT, "tests/fixtures/kb.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { url: string; title: string; content: string });
const subjects = docs.flatMap((d) =>
  [...d.content.matchAll(/^#{1,3} (.+)$/gm)].map((m) => ({ phrase: m[1]!.toLowerCase(), url: d.url })),
);
const TEMPLATES = [
  (p: string) => `How do I use ${p}?`,
  (p: string) => `${p} example`,
  (p: string) => `What is ${p} for?`,
  (p: string) => `Comment utiliser ${p} ?`,
  (p: string) => `¿Cómo funciona ${p}?`,
  (p: string) => `${p} not working`,
];
const OFF_TOPIC = ["ratatouille recipe", "weather in Lisbon tomorrow", "best hiking boots", "stock price of acme"];

// A fixed generator: the same questions every run.
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;

const store = await openPglite();
await migrate(store);
const db = store.db;
await ingestDocuments(db, docs, { kbId: DEFAULT_KB_ID });
const key = await createKey(db, { name: "bench", plan: "pro" });

const t0 = Date.parse("2026-01-01T00:00:00Z");
const rows = Array.from({ length: N }, (_, i) => {
  const off = random() < 0.1;
  const s = pick(subjects);
  const question = off ? pick(OFF_TOPIC) : pick(TEMPLATES)(s.phrase);
  const at = new Date(t0 + i * 60_000).toISOString();
  return { conv: newId("conv"), user: newId("msg"), reply: newId("msg"), question, at, url: off ? null : s.url };
});
const started = performance.now();
for (let i = 0; i < rows.length; i += 500) {
  const chunk = rows.slice(i, i + 500);
  await db.execute(sql`insert into conversations (id, key_id, title, kb_id, created_at, updated_at)
    values ${sql.join(
      chunk.map((r) => sql`(${r.conv}, ${key.id}, 'q', ${DEFAULT_KB_ID}, ${r.at}::timestamptz, ${r.at}::timestamptz)`),
      sql`, `,
    )}`);
  await db.execute(sql`insert into messages (id, conversation_id, role, content, sources, status, certainty, created_at)
    values ${sql.join(
      chunk.flatMap((r) => [
        sql`(${r.user}, ${r.conv}, 'user', ${r.question}, '[]'::jsonb, 'completed', null, ${r.at}::timestamptz)`,
        sql`(${r.reply}, ${r.conv}, 'assistant', '…', ${JSON.stringify(r.url ? [r.url] : [])}::jsonb, 'completed',
          ${r.url ? "answered" : "no_sources"}, ${r.at}::timestamptz + interval '1 millisecond')`,
      ]),
      sql`, `,
    )}`);
}
const seeded = performance.now();
let copied = 0;
for (let n = -1; n !== 0; ) copied += n = await ingestPending(db, Date.now(), 5_000);
const ingested = performance.now();

async function median(f: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    await f();
    times.push(performance.now() - s);
  }
  return times.sort((a, b) => a - b)[2]!;
}
const scope = {};
const [topics] = await rowsOf<{ n: number }>(db, sql`select count(*) as n from analytics_topics`);
const topicCount = Number(topics?.n);
const result = {
  questions: N,
  seed_ms: Math.round(seeded - started),
  copied,
  ingest_ms: Math.round(ingested - seeded),
  ingest_per_question_ms: Math.round(((ingested - seeded) / copied) * 100) / 100,
  topics_in_store: topicCount,
  topics_ms: Math.round(await median(() => listTopics(db, scope, false, 20, null))),
  gaps_ms: Math.round(await median(() => listTopics(db, scope, true, 20, null))),
  pages_ms: Math.round(await median(() => pagesReport(db, scope, 20))),
  questions_ms: Math.round(await median(() => listQuestions(db, scope, 20, null))),
};
console.log(JSON.stringify(result, null, 2));
await store.close();

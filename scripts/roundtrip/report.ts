/** The round trip's report (docs/archive-roundtrip.md): what moved, what was compared, sizes and times. */
import { relative } from "node:path";
import type { Built } from "./build.ts";
import { FRESH_QUESTION, type Probe } from "./probe.ts";
import type { ScaleRun } from "./scale.ts";
import type { Exported } from "./stores.ts";

export interface Step {
  name: string;
  kind: string;
  imported?: { ms: number; counts: Record<string, number> };
  exported: Exported;
  probe: Probe;
}

interface Input {
  corpus: string;
  docs: number;
  passages: number;
  built: Built;
  steps: Step[];
  checks: string[][];
  scale?: ScaleRun;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const per100k = (value: number, passages: number) => (value * 100_000) / passages;
const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text).replace(/\s+/g, " ");
const short = (hash: string) => `\`${hash.slice(0, 16)}…\``;

export function report({ corpus, docs, passages, built, steps, checks, scale }: Input): string {
  const out: string[] = [];
  const say = (line = "") => out.push(line);
  const first = steps[0]!;
  const same = checks.every((c) => c.length === 0);
  say("# Archive round trip on real data");
  say();
  say(
    "A store built from real documentation and a few hundred conversations is moved PGlite → PostgreSQL → PGlite with `parley export` / `parley import`'s functions, and at every step it holds the same rows (the trailer's `rows_sha256`, the SHA-256 of every table line) and answers the same: search rankings, a conversation's transcript, a listing page and the page after a cursor the *first* store signed, analytics topics, the feedback list, a question asked anew, and the pro key's usage. The PostgreSQL database runs in a non-UTC time zone on purpose. Sizes and times are measured on this machine; the per-100,000-passage figures scale the measured ones linearly by passage count, and a synthetic store of at least 100,000 passages checks that scaling and the memory an export takes.",
  );
  say();
  say(
    `Rerun: \`bun run archive:roundtrip --out docs/archive-roundtrip.md\` (options: \`--corpus PATH\`, \`--conversations N\`, \`--scale PASSAGES\` (0: skip), \`--pg ADMIN_URL\`; PostgreSQL at 127.0.0.1:5432 by default). It exits 1 if any step differs. Generated ${new Date().toISOString().slice(0, 10)}.`,
  );
  say();
  say(`**Result: ${same && !built.problems.length ? "every step identical" : "DIFFERENCES FOUND"}.**`);
  say();
  say("## The store");
  say();
  say(`- Corpus: \`${relative(process.cwd(), corpus)}\`, ${docs} documents, ${passages} passages, one knowledge base.`);
  say(
    `- Turns through the HTTP app: ${Object.entries(built.made)
      .map(([k, v]) => `${v} ${k.replace("_", "-")}`)
      .join(", ")}; keys: pro, team, admin; some chats with an \`Idempotency-Key\`.`,
  );
  say(`- Problems while building (a stream whose text or ids differ from the stored reply): ${built.problems.length}.`);
  say();
  say("## Steps");
  say();
  say("| step | store | rows | `rows_sha256` | archive | export | import | compared with step 1 |");
  say("|---|---|--:|---|--:|--:|--:|---|");
  for (const [n, s] of steps.entries()) {
    const rows = Object.values(s.exported.trailer.counts).reduce((a, b) => a + b, 0);
    const verdict = checks[n]!.length ? `differs: ${checks[n]!.join(", ")}` : n === 0 ? "—" : "identical";
    say(
      `| ${n + 1} | ${s.name} | ${rows} | ${short(s.exported.trailer.rows_sha256)} | ${mb(s.exported.bytes)} | ${sec(s.exported.ms)} | ${s.imported ? sec(s.imported.ms) : "(built)"} | ${verdict} |`,
    );
  }
  say();
  say("Rows per table, as each step's archive counts them (and as each import loaded them):");
  say();
  say(`| table | ${steps.map((_, n) => `step ${n + 1}`).join(" | ")} |`);
  say(`|---|${steps.map(() => "--:").join("|")}|`);
  for (const table of Object.keys(first.exported.trailer.counts))
    say(`| ${table} | ${steps.map((s) => s.exported.trailer.counts[table] ?? "—").join(" | ")} |`);
  say();
  say("## Search rankings (5 fixed queries, top 5 of 8 shown)");
  say();
  for (const [q, r] of first.probe.rankings.entries()) {
    const equal = steps.every((s) => Bun.deepEquals(s.probe.rankings[q], r));
    say(`- “${r.query}” — ${equal ? "same order and scores at every step" : "**differs**"}:`);
    for (const h of r.hits.slice(0, 5))
      say(
        `  ${r.hits.indexOf(h) + 1}. ${h.url}${h.heading ? ` (${clip(h.heading, 60)})` : ""} — ${h.score.toFixed(4)}`,
      );
    if (!r.hits.length) say("  (no hit: the agent abstains)");
  }
  say();
  say("## A transcript (the pro key's conversation, `GET /v1/conversations/{id}`)");
  say();
  const t = first.probe.transcript;
  say(
    `\`${t.id}\` “${t.title}”, ${t.messages.length} messages; identical JSON at every step: ${steps.every((s) => Bun.deepEquals(s.probe.transcript, t))}.`,
  );
  say();
  for (const m of t.messages.slice(0, 4))
    say(`> **${m.role}** (${m.status}${m.feedback ? `, rated ${m.feedback.rating}` : ""}): ${clip(m.content, 220)}\n>`);
  say();
  say("## Cursors, usage and answers after the move");
  say();
  const p = first.probe;
  say(
    `- Listing: ${p.listing.data.length} conversations on the first page; the cursor step 1 signed (\`${clip(String(p.cursor), 24)}\`) opens the same next page (${p.nextPage.data.length} conversations, first \`${p.nextPage.data[0]?.id}\`) on every store.`,
  );
  const totals = p.usage.data[0]?.totals;
  say(
    `- The pro key authenticates on every store; \`GET /v1/usage\` is equal at every step (totals: ${JSON.stringify(totals)}).`,
  );
  say(
    `- Analytics: ${p.topics.data.length} topics listed, the largest “${clip(p.topics.data[0]?.question ?? "", 80)}” (${p.topics.data[0]?.size} questions); feedback list: ${p.feedback.data.length} ratings on its first page.`,
  );
  say(
    `- “${FRESH_QUESTION}” asked on each store: the same answer (${p.fresh.content.length} characters, certainty \`${p.fresh.certainty}\`, sources ${JSON.stringify(p.fresh.sources)}).`,
  );
  say();
  say("## Sizes and times");
  say();
  say(
    `Per 100,000 passages: the measured figures × 100,000 / ${passages} (linear in passages, an estimate; the store also holds ${Object.values(first.exported.trailer.counts).reduce((a, b) => a + b, 0) - passages} other rows).`,
  );
  say();
  say("| step | archive | per 100k passages | export | per 100k | import | per 100k |");
  say("|---|--:|--:|--:|--:|--:|--:|");
  for (const [n, s] of steps.entries())
    say(
      `| ${n + 1} ${s.kind} | ${mb(s.exported.bytes)} | ${mb(per100k(s.exported.bytes, passages))} | ${sec(s.exported.ms)} | ${sec(per100k(s.exported.ms, passages))} | ${s.imported ? sec(s.imported.ms) : "—"} | ${s.imported ? sec(per100k(s.imported.ms, passages)) : "—"} |`,
    );
  say();
  say(
    "The estimate treats every row as growing with the passages; here most rows are the conversations' stored stream events, so it overstates a store that is mostly documents, which the measured store below is.",
  );
  say();
  if (scale) scaleSection(say, scale, steps);
  else say("No synthetic larger store was run (`--scale 0`, or the corpus already had that many passages).");
  return `${out.join("\n")}\n`;
}

function scaleSection(say: (line?: string) => void, s: ScaleRun, steps: Step[]): void {
  say(`### Measured at scale: ${s.passages.toLocaleString("en")} passages`);
  say();
  say(
    `The corpus ingested ${s.copies} times, each under its own knowledge base (${s.documents.toLocaleString("en")} documents; ingest ${sec(s.ingestMs)}), no conversations. Peak RSS is the whole process's (\`process.memoryUsage().rss\` every 20 ms during the export); with PGlite the database itself runs in the process, so its memory is in the figure.`,
  );
  say();
  say("| export from | archive | export | import | RSS before | peak RSS during export |");
  say("|---|--:|--:|--:|--:|--:|");
  const small = (kind: string) => steps.find((x) => x.kind === kind)!;
  for (const kind of ["pglite", "postgres"]) {
    const x = small(kind).exported;
    say(
      `| small store (step ${steps.indexOf(small(kind)) + 1}), ${kind} | ${mb(x.bytes)} | ${sec(x.ms)} | — | ${mb(x.rssBefore)} | ${mb(x.peakRss)} |`,
    );
  }
  say(
    `| ${s.passages.toLocaleString("en")} passages, pglite | ${mb(s.fromPglite.bytes)} | ${sec(s.fromPglite.ms)} | — | ${mb(s.fromPglite.rssBefore)} | ${mb(s.fromPglite.peakRss)} |`,
  );
  say(
    `| ${s.passages.toLocaleString("en")} passages, postgres | ${mb(s.fromPostgres.bytes)} | ${sec(s.fromPostgres.ms)} | ${sec(s.importPostgresMs)} (into it) | ${mb(s.fromPostgres.rssBefore)} | ${mb(s.fromPostgres.peakRss)} |`,
  );
  say();
  say(`The PostgreSQL export of the large store has the same \`rows_sha256\` as the PGlite one: ${s.sameRows}.`);
}

/**
 * `bun eval/tune-abstention.ts`: chooses the abstention's second way to answer (`minTerms`,
 * search-options.ts) with the size at which an unseen word weighs half (`unseenHalfWords`),
 * leaving one language out. Every question set of catalog.ts
 * whose corpus is present is searched once with the abstention off; each question keeps what the
 * rule reads (the best page's and passage's coverage, each page's count of known words).
 * For each language, the grid point that does best on the OTHER languages (in-scope answered
 * plus off-topic refused, each as a share, averaged over languages) is reported on that one.
 */

import { sql } from "drizzle-orm";
import { rowsOf } from "../src/db/rows.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { SEARCH_DEFAULTS } from "../src/knowledge/search-options.ts";
import { SUITES } from "./catalog.ts";
import { isDialogFile, readCorpus, readQuestions } from "./load.ts";
import { withCorpus } from "./store.ts";

interface Seen {
  language: string;
  inScope: boolean;
  top3: boolean;
  pageCov: number;
  passCov: number;
  pages: number[];
  /** The knowledge base's share W / (W + unseenHalfWords), W its words (the unseen word's scale). */
  scale: number;
  /** The `unseenHalfWords` it was searched with. */
  halfWords: number;
}

/** `unseenHalfWords` values searched (coverage depends on it, so each is a search of its own). */
const HALF_WORDS = [500, 2_000, 8_000, 32_000];

const seen: Seen[] = [];
for (const suite of SUITES.filter((s) => !s.heldOut)) {
  const corpus = readCorpus(suite.corpus);
  if (!corpus) continue;
  await withCorpus(corpus, suite.name, async ({ db, kbId }) => {
    const [stats] = await rowsOf<{ w: number }>(
      db,
      sql`select total_len::float8 as w from knowledge_base_stats where kb_id = ${kbId}`,
    );
    const words = Number(stats?.w ?? 0);
    for (const halfWords of HALF_WORDS)
      for (const set of suite.sets.filter((s) => !isDialogFile(s))) {
        const scale = words / (words + halfWords);
        for (const q of readQuestions(set)) {
          const hits = await searchPassages(db, q.question, [], {
            kbId,
            minCoverage: 0,
            minPassageCoverage: 0,
            minTerms: 0,
            unseenHalfWords: halfWords,
            limit: 50,
            perPage: 1,
          });
          const pages = [...new Set(hits.map((h) => h.url))];
          seen.push({
            language: suite.language,
            inScope: q.urls.length > 0,
            top3: pages.slice(0, 3).some((u) => q.urls.includes(u)),
            pageCov: Math.max(0, ...hits.map((h) => h.coverage)),
            passCov: Math.max(0, ...hits.map((h) => h.coverage)),
            pages: hits.map((h) => h.pageTerms ?? 0),
            scale,
            halfWords,
          });
        }
      }
  });
}

/** `scaled`: minTerms times the knowledge base's scale, as the unseen word's weight is (two at least, as in search). */
type Rule = { minTerms: number; scaled: boolean; halfWords: number };
const answers = (s: Seen, r: Rule) =>
  (s.pageCov >= SEARCH_DEFAULTS.minCoverage && s.passCov >= SEARCH_DEFAULTS.minPassageCoverage) ||
  s.pages.some((terms) => terms >= (r.scaled ? Math.max(2, r.minTerms * s.scale) : r.minTerms));
function score(all: Seen[], r: Rule) {
  const rows = all.filter((s) => s.halfWords === r.halfWords);
  const inS = rows.filter((s) => s.inScope);
  const off = rows.filter((s) => !s.inScope);
  const answered = inS.filter((s) => answers(s, r)).length;
  const refused = off.filter((s) => !answers(s, r)).length;
  return { answered, inS: inS.length, refused, off: off.length, value: answered / inS.length + refused / off.length };
}
const grid: Rule[] = [{ minTerms: 1_000, scaled: false, halfWords: SEARCH_DEFAULTS.unseenHalfWords }];
for (const halfWords of HALF_WORDS)
  for (const scaled of [false, true])
    for (const minTerms of [2, 3, 4, 5, 6, 7, 8, 10, 12]) grid.push({ minTerms, scaled, halfWords });
const named = (r: Rule) => `minTerms ${r.minTerms}${r.scaled ? " scaled" : ""}, unseenHalfWords ${r.halfWords}`;
const languages = [...new Set(seen.map((s) => s.language))];
const ofLanguage = (l: string) => seen.filter((s) => s.language === l);
/** A rule's value averaged over `langs`: each language's in-scope answered plus off-topic refused shares. */
const meanOver = (langs: string[], r: Rule) =>
  langs.reduce((n, l) => n + score(ofLanguage(l), r).value, 0) / langs.length;
const bestOn = (langs: string[]) => grid.reduce((b, r) => (meanOver(langs, r) > meanOver(langs, b) ? r : b), grid[0]!);
for (const held of languages) {
  const others = languages.filter((l) => l !== held);
  const best = bestOn(others);
  const off = score(ofLanguage(held), grid[0]!);
  const on = score(ofLanguage(held), best);
  console.log(
    `${held}: chosen on ${others.join(", ")}: ${named(best)} → in-scope answered ${on.answered}/${on.inS} (rule off ${off.answered}), off-topic refused ${on.refused}/${on.off} (rule off ${off.refused})`,
  );
}
const all = bestOn(languages);
console.log(`all languages: ${named(all)}`);
for (const r of grid.slice(1)) {
  const cells = languages.map((l) => {
    const x = score(ofLanguage(l), r);
    return `${l} ${x.answered}/${x.inS} ${x.refused}/${x.off}`;
  });
  console.log(`${named(r)}: ${cells.join(" · ")}`);
}
process.exit(0);

/**
 * Insights (admin keys): what people ask and how the answers went, for one knowledge base or all
 * and a period of UTC days (the last 30 by default) — the topics over time, the gaps (what to
 * write next), the questions answered uncertainly, without sources or rated down, and the pages
 * never cited. Everything comes from the /v1/analytics routes.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { PagesSection } from "./insights-pages.tsx";
import { type Filters, QuestionSection } from "./insights-questions.tsx";
import { TopicSection } from "./insights-topics.tsx";
import type { Kb } from "./knowledge.tsx";

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));

export function Insights() {
  const [kbs, setKbs] = useState<Kb[]>([]);
  const [kb, setKb] = useState("");
  const [from, setFrom] = useState(dayOf(Date.now() - 29 * DAY));
  const [to, setTo] = useState(dayOf(Date.now()));
  const [ready, setReady] = useState(false);
  const [error, setError] = useState("");
  useEffect(() => {
    api("GET", "/v1/knowledge_bases?limit=100").then(
      (r) => setKbs(r.data),
      (e) => setError(e.message),
    );
    // Every analytics read first copies the replies that ended since the last one: one read before
    // the page's half-dozen keeps them from all doing that same work at once.
    api("GET", "/v1/analytics/questions?limit=1").then(
      () => setReady(true),
      (e) => setError(e.message),
    );
  }, []);
  const names = new Map(kbs.map((k) => [k.id, k.name]));
  const kbName = (id: string | null) => (id ? (names.get(id) ?? id) : "no knowledge base");
  const valid = isDay(from) && isDay(to) && from <= to;
  const filters: Filters = { kb, from, to, toApi: valid ? dayOf(Date.parse(`${to}T00:00:00Z`) + DAY) : "" };
  return (
    <div class="stack insights">
      <h1>Insights</h1>
      <form class="grid filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>
          Knowledge base
          <select value={kb} onChange={(e) => setKb(e.currentTarget.value)}>
            <option value="">All knowledge bases</option>
            {kbs.map((k) => (
              <option value={k.id}>{k.name}</option>
            ))}
          </select>
        </label>
        <label>
          From (UTC day)
          <input type="date" value={from} max={to} onChange={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To (UTC day, included)
          <input type="date" value={to} min={from} onChange={(e) => setTo(e.currentTarget.value)} />
        </label>
      </form>
      {!valid && (
        <p class="error" role="alert">
          Choose a period: both days, the first not after the last.
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!ready && !error && <p aria-busy="true">Loading…</p>}
      {ready && valid && (
        <>
          <TopicSection
            gaps={false}
            filters={filters}
            kbName={kbName}
            heading="Topics"
            hint="Similar questions together, the largest first: how each was answered, the pages its answers cited, and its questions per day."
            empty="No questions in this period. Topics appear once people ask (in the playground, the widget or through the API)."
          />
          <TopicSection
            gaps={true}
            filters={filters}
            kbName={kbName}
            heading="Gaps: what to write next"
            hint="Topics where at least half the questions went uncertain or unanswered, or half the rated answers were rated down; the most unmet first."
            empty="No gaps in this period: every topic was mostly answered, and not mostly rated down."
          />
          <section aria-labelledby="questions-heading">
            <h2 id="questions-heading">Answers to look at</h2>
            <QuestionSection
              id="uncertain-heading"
              heading="Uncertain answers"
              hint="Sources were found, but they matched the question weakly or the answer cited none."
              filters={filters}
              only={{ certainty: "uncertain" }}
              empty="No uncertain answer in this period."
            />
            <QuestionSection
              id="no-sources-heading"
              heading="No sources"
              hint="The knowledge base had nothing for these questions."
              filters={filters}
              only={{ certainty: "no_sources" }}
              empty="Every question of this period found sources."
            />
            <QuestionSection
              id="down-heading"
              heading="Rated down"
              hint="Answers people rated down. Answers stored before certainty was recorded say “Not recorded”."
              filters={filters}
              only={{ rating: "down" }}
              empty="No answer was rated down in this period."
            />
          </section>
          <PagesSection filters={filters} kbName={kbName} />
        </>
      )}
    </div>
  );
}

/**
 * Usage per key and UTC day, as SVG bar charts: questions asked (chat turns) apart from API
 * requests (every request counts, this console's own included), and tokens; then rated answers.
 */
import { useEffect, useState } from "preact/hooks";
import { api, qs } from "../api.ts";
import { RatedAnswers } from "./feedback-list.tsx";

interface Day {
  date: string;
  requests: number;
  chat_turns: number;
  input_tokens: number;
  output_tokens: number;
}
interface KeyUsage {
  key_id: string;
  key_name: string;
  days: Day[];
  totals: Omit<Day, "date">;
}

function Bars({ title, days, value }: { title: string; days: Day[]; value: (d: Day) => number }) {
  const max = Math.max(1, ...days.map(value));
  const w = 300;
  const h = 80;
  const bw = w / Math.max(days.length, 1);
  const total = days.reduce((s, d) => s + value(d), 0);
  return (
    <figure>
      <figcaption>
        {title}: {total} (max {max === 1 && total === 0 ? 0 : max} a day)
      </figcaption>
      <svg viewBox={`0 0 ${w} ${h + 14}`} role="img" aria-label={`${title}: ${total} in ${days.length} days`}>
        {days.map((d, i) => {
          const bh = (value(d) / max) * h;
          return (
            <rect x={i * bw + 1} y={h - bh} width={Math.max(bw - 2, 1)} height={bh} class="bar">
              <title>
                {d.date}: {value(d)}
              </title>
            </rect>
          );
        })}
        <text x={0} y={h + 12} class="axis">
          {days[0]?.date ?? ""}
        </text>
        <text x={w} y={h + 12} class="axis" text-anchor="end">
          {days.at(-1)?.date ?? ""}
        </text>
      </svg>
    </figure>
  );
}

export function Usage() {
  const [usage, setUsage] = useState<KeyUsage[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    const to = new Date();
    const from = new Date(to.getTime() - 13 * 86_400_000);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    api("GET", `/v1/usage${qs({ from: day(from), to: day(to), key_id: "all" })}`).then(
      (r) => setUsage(r.data),
      (e) => setError(e.message),
    );
  }, []);
  return (
    <div class="stack">
      <h1>Usage and feedback</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Last 14 days by key (UTC)</h2>
        <p class="hint">
          Questions asked are chat turns: one per answered question. API requests count every request a key made,
          including the ones this console makes to show its pages.
        </p>
        {usage?.length === 0 && <p>No usage in this period.</p>}
        <div class="charts">
          {usage?.map((k) => (
            <article class="card">
              <h3>{k.key_name}</h3>
              <p class="totals">
                Questions asked: <strong>{k.totals.chat_turns}</strong> · API requests: {k.totals.requests}
              </p>
              <Bars title="Questions asked (chat turns)" days={k.days} value={(d) => d.chat_turns} />
              <Bars
                title="API requests (every request, this console's own included)"
                days={k.days}
                value={(d) => d.requests}
              />
              <Bars title="Tokens (input + output)" days={k.days} value={(d) => d.input_tokens + d.output_tokens} />
            </article>
          ))}
        </div>
      </section>
      <RatedAnswers />
    </div>
  );
}

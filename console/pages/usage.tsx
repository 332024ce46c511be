/** Usage (per-day requests and tokens per key, as SVG bar charts) and the down-voted answers. */
import { useEffect, useState } from "preact/hooks";
import { api, qs } from "../api.ts";
import { safeUrl } from "../markdown.tsx";

interface Day {
  date: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
}
interface KeyUsage {
  key_id: string;
  key_name: string;
  days: Day[];
}

function Bars({ title, days, value }: { title: string; days: Day[]; value: (d: Day) => number }) {
  const max = Math.max(1, ...days.map(value));
  const w = 300;
  const h = 80;
  const bw = w / Math.max(days.length, 1);
  const total = days.reduce((s, d) => s + value(d), 0);
  return (
    <figure>
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
      <figcaption>
        {title}: {total} (max {max === 1 && total === 0 ? 0 : max} a day)
      </figcaption>
    </figure>
  );
}

export function Usage() {
  const [usage, setUsage] = useState<KeyUsage[] | null>(null);
  const [downs, setDowns] = useState<any[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    const to = new Date();
    const from = new Date(to.getTime() - 13 * 86_400_000);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    api("GET", `/v1/usage${qs({ from: day(from), to: day(to), key_id: "all" })}`).then(
      (r) => setUsage(r.data),
      (e) => setError(e.message),
    );
    api("GET", "/v1/feedback?rating=down&limit=50").then(
      (r) => setDowns(r.data),
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
        {usage?.length === 0 && <p>No usage in this period.</p>}
        <div class="charts">
          {usage?.map((k) => (
            <article class="card">
              <h3>{k.key_name}</h3>
              <Bars title="Requests" days={k.days} value={(d) => d.requests} />
              <Bars title="Tokens" days={k.days} value={(d) => d.input_tokens + d.output_tokens} />
            </article>
          ))}
        </div>
      </section>
      <section aria-labelledby="down-heading">
        <h2 id="down-heading">Down-voted answers</h2>
        {downs?.length === 0 && <p>No answer was voted down.</p>}
        <ul class="downs">
          {downs?.map((f) => (
            <li class="card">
              <p>
                <strong>Question:</strong> <span class="plain">{f.question}</span>
              </p>
              <p>
                <strong>Answer:</strong> <span class="plain">{f.answer}</span>
              </p>
              {f.comment && (
                <p>
                  <strong>Comment:</strong> <span class="plain">{f.comment}</span>
                </p>
              )}
              {f.sources?.length > 0 && (
                <ol class="sources" aria-label="Sources">
                  {f.sources.map((s: string) => (
                    <li>{safeUrl(s) ? <a href={safeUrl(s)}>{s}</a> : s}</li>
                  ))}
                </ol>
              )}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

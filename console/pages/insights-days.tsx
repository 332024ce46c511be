/**
 * A topic's questions per UTC day as small SVG bars over the whole period (the API lists only the
 * days that had some), with the counts as its text alternative.
 */

const DAY = 86_400_000;
/** A longer period is drawn from its first question to its last: a bar per day would be a hairline. */
const MAX_DAYS = 370;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every date from `from` to `to` (YYYY-MM-DD, both included), or [] when either is not a date. */
function dates(from: string, to: string): string[] {
  const a = Date.parse(`${from}T00:00:00Z`);
  const b = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(a) || Number.isNaN(b) || b < a || (b - a) / DAY >= MAX_DAYS) return [];
  const out: string[] = [];
  for (let t = a; t <= b; t += DAY) out.push(dayOf(t));
  return out;
}

export function DayBars(props: { days: { date: string; questions: number }[]; from: string; to: string }) {
  const counts = new Map(props.days.map((d) => [d.date, d.questions]));
  const sorted = props.days.map((d) => d.date).sort();
  let span = dates(props.from, props.to);
  if (!span.length || sorted.some((d) => !span.includes(d))) span = dates(sorted[0] ?? "", sorted.at(-1) ?? "");
  if (!span.length) return null;
  const max = Math.max(1, ...props.days.map((d) => d.questions));
  const total = props.days.reduce((s, d) => s + d.questions, 0);
  const w = 300;
  const h = 32;
  const bw = w / span.length;
  const busy = props.days
    .slice()
    .sort((x, y) => x.date.localeCompare(y.date))
    .map((d) => `${d.date}: ${d.questions}`)
    .join(", ");
  const label = `Questions per day, ${span[0]} to ${span.at(-1)}: ${total} in all${busy ? ` (${busy})` : ""}`;
  return (
    <figure class="days">
      <svg viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label}>
        <line x1={0} y1={h - 0.5} x2={w} y2={h - 0.5} class="baseline" />
        {span.map((date, i) => {
          const n = counts.get(date) ?? 0;
          if (!n) return null;
          const bh = Math.max((n / max) * h, 2);
          return (
            <rect x={i * bw + bw * 0.1} y={h - bh} width={Math.max(bw * 0.8, 1)} height={bh} class="bar">
              <title>
                {date}: {n}
              </title>
            </rect>
          );
        })}
      </svg>
      <figcaption class="meta">
        {span[0]} – {span.at(-1)} · busiest day {max === 1 && total === 0 ? 0 : max}
      </figcaption>
    </figure>
  );
}

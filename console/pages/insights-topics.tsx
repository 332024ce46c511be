/**
 * Topics of the period as cards (GET /v1/analytics/topics, largest first; /gaps, most unmet
 * first): each with its representative question, size, how its replies went, the pages they
 * cited most and its questions per day; its questions themselves one click further.
 */
import { useState } from "preact/hooks";
import type { AnalyticsTopic } from "../../src/contract/analytics.ts";
import { qs } from "../api.ts";
import { safeUrl } from "../markdown.tsx";
import { urlLabel } from "../names.ts";
import { PagedState, usePaged } from "../paged.tsx";
import { DayBars } from "./insights-days.tsx";
import { type Filters, QuestionTable } from "./insights-questions.tsx";

/** The wire type, from the contract (type-only: nothing of src/ reaches the bundle). */
type Topic = AnalyticsTopic;

const pct = (share: number) => `${Math.round(share * 100)}%`;

/** The shares of a topic's questions as one stacked bar, its text beside it (the bar is decoration). */
function Shares({ t }: { t: Topic }) {
  // Replies stored before certainty was recorded count in none of the three.
  const unknown = Math.max(0, 1 - t.answered_share - t.uncertain_share - t.no_sources_share);
  const parts = [
    ["answered", t.answered_share],
    ["uncertain", t.uncertain_share],
    ["no-sources", t.no_sources_share],
    ["unknown", unknown],
  ] as const;
  let x = 0;
  return (
    <div class="shares">
      <svg viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" class="share-bar">
        {parts.map(([name, share]) => {
          const rect = <rect x={x} y={0} width={share * 100} height={6} class={`share-${name}`} />;
          x += share * 100;
          return rect;
        })}
      </svg>
      <p class="meta">
        <span class="key share-answered">Answered {pct(t.answered_share)}</span> ·{" "}
        <span class="key share-uncertain">uncertain {pct(t.uncertain_share)}</span> ·{" "}
        <span class="key share-no-sources">no sources {pct(t.no_sources_share)}</span>
        {unknown > 0.005 && <> · not recorded {pct(unknown)}</>} ·{" "}
        {t.down_share === null ? "none rated" : `rated down ${pct(t.down_share)} of ${t.rated} rated`}
      </p>
    </div>
  );
}

function TopicCard({ t, filters, kbName }: { t: Topic; filters: Filters; kbName: (id: string | null) => string }) {
  // Its questions are read once opened: a page of cards would otherwise ask for every topic's.
  const [open, setOpen] = useState(false);
  return (
    <li class="card topic">
      <h3 class="plain">{t.question ? `“${t.question}”` : "(question text no longer kept)"}</h3>
      <p class="meta">
        <strong>
          {t.size} question{t.size === 1 ? "" : "s"}
        </strong>
        {!filters.kb && <> · {kbName(t.knowledge_base_id)}</>}
        {t.terms.length > 0 && <> · terms: {t.terms.join(", ")}</>}
      </p>
      <Shares t={t} />
      <DayBars days={t.days} from={filters.from} to={filters.to} />
      {t.pages.length > 0 ? (
        <>
          <p class="meta">Pages its answers cited most:</p>
          <ol class="sources">
            {t.pages.map((p) => {
              const href = safeUrl(p.url);
              const label = p.title ?? urlLabel(p.url);
              return (
                <li>
                  {href ? (
                    <a href={href} target="_blank" rel="noopener noreferrer" title={p.url}>
                      {label}
                    </a>
                  ) : (
                    label
                  )}{" "}
                  <span class="host">
                    · cited {p.citations} time{p.citations === 1 ? "" : "s"}
                  </span>
                </li>
              );
            })}
          </ol>
        </>
      ) : (
        <p class="meta">Its answers cited no page.</p>
      )}
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Its questions</summary>
        {open && (
          <QuestionTable
            filters={filters}
            only={{ topic_id: t.id }}
            empty="No question of this topic in the period."
            compact={true}
          />
        )}
      </details>
    </li>
  );
}

/** The topics (`gaps`: only the unmet ones) of the filters' period and knowledge base. */
export function TopicSection(props: {
  gaps: boolean;
  filters: Filters;
  kbName: (id: string | null) => string;
  heading: string;
  hint: string;
  empty: string;
}) {
  const { filters } = props;
  const route = props.gaps ? "gaps" : "topics";
  const scope = { knowledge_base_id: filters.kb, from: filters.from, to: filters.toApi, limit: 10 };
  const list = usePaged<Topic>(`/v1/analytics/${route}${qs(scope)}`);
  return (
    <section aria-labelledby={`${route}-heading`}>
      <h2 id={`${route}-heading`}>{props.heading}</h2>
      <p class="hint">{props.hint}</p>
      <ul class="topics">
        {list.items?.map((t) => (
          <TopicCard key={t.id} t={t} filters={filters} kbName={props.kbName} />
        ))}
      </ul>
      <PagedState list={list} empty={props.empty} label={props.gaps ? "More gaps" : "More topics"} />
    </section>
  );
}

/**
 * Questions of the period (GET /v1/analytics/questions), newest first, filtered by how their
 * reply went (certainty, rating) or by topic: each with its conversation one click away.
 */
import type { AnalyticsQuestion } from "../../src/contract/analytics.ts";
import { qs } from "../api.ts";
import { PagedState, usePaged } from "../paged.tsx";
import { Cell, when } from "../table.tsx";

/** What the Insights page reads: a knowledge base ("" for all) and UTC days, `to` included. */
export interface Filters {
  kb: string;
  from: string;
  to: string;
  /** The day after `to`: the API's `to` is the first instant not included. */
  toApi: string;
}

/** The wire type, from the contract (type-only: nothing of src/ reaches the bundle). */
type Question = AnalyticsQuestion;

/** Replies stored before certainty was recorded have none: they say so rather than guess. */
export const certaintyLabel = (c: Question["certainty"]) =>
  c === "answered" ? "Answered" : c === "uncertain" ? "Uncertain" : c === "no_sources" ? "No sources" : "Not recorded";

const ratingLabel = (r: Question["rating"]) => (r === "down" ? "Rated down" : r === "up" ? "Rated up" : "Not rated");

/** The link to a question's conversation, named by its question (the way back leads to Insights). */
function Open({ q }: { q: Question }) {
  return (
    <a href={`#/conversation/${encodeURIComponent(q.conversation_id)}/insights`}>
      Open
      <span class="visually-hidden"> the conversation of “{q.question ?? q.message_id}”</span>
    </a>
  );
}

const sourcesNote = (q: Question) =>
  q.sources.length ? ` · ${q.sources.length} source${q.sources.length === 1 ? "" : "s"}` : "";

/** A table; `compact` (inside a topic's card, too narrow for five columns): a list. */
export function QuestionTable(props: {
  filters: Filters;
  only: { certainty?: string; rating?: string; topic_id?: string };
  empty: string;
  compact?: boolean;
}) {
  const { kb, from, toApi } = props.filters;
  const list = usePaged<Question>(
    `/v1/analytics/questions${qs({ knowledge_base_id: kb, from, to: toApi, ...props.only, limit: 10 })}`,
  );
  const items = list.items ?? [];
  return (
    <>
      {props.compact && items.length > 0 && (
        <ul class="questions">
          {items.map((q) => (
            <li key={q.message_id}>
              <span class="plain">{q.question ?? "(no longer kept)"}</span>
              <span class="meta">
                {" "}
                {certaintyLabel(q.certainty)}
                {sourcesNote(q)} · {ratingLabel(q.rating)} · <time dateTime={q.created_at}>{when(q.created_at)}</time> ·{" "}
                <Open q={q} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {!props.compact && items.length > 0 && (
        <div class="table-wrap">
          <table class="reflow">
            <thead>
              <tr>
                <th scope="col">Question</th>
                <th scope="col">Answer</th>
                <th scope="col">Rating</th>
                <th scope="col">Asked</th>
                <th scope="col">Conversation</th>
              </tr>
            </thead>
            <tbody>
              {items.map((q) => (
                <tr key={q.message_id}>
                  <Cell label="Question" class="prose">
                    <span class="plain">{q.question ?? "(no longer kept)"}</span>
                  </Cell>
                  <Cell label="Answer">
                    {certaintyLabel(q.certainty)}
                    <span class="meta">{sourcesNote(q)}</span>
                  </Cell>
                  <Cell label="Rating">{ratingLabel(q.rating)}</Cell>
                  <Cell label="Asked">
                    <time dateTime={q.created_at}>{when(q.created_at)}</time>
                  </Cell>
                  <Cell label="Conversation">
                    <Open q={q} />
                  </Cell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PagedState list={list} empty={props.empty} label="More questions" />
    </>
  );
}

/** One list of questions under its own heading. */
export function QuestionSection(props: {
  id: string;
  heading: string;
  hint: string;
  filters: Filters;
  only: { certainty?: string; rating?: string };
  empty: string;
}) {
  return (
    <section aria-labelledby={props.id}>
      <h3 id={props.id}>{props.heading}</h3>
      <p class="hint">{props.hint}</p>
      <QuestionTable filters={props.filters} only={props.only} empty={props.empty} />
    </section>
  );
}

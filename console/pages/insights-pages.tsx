/**
 * How the period's replies used the knowledge bases' pages (GET /v1/analytics/pages, a report of
 * up to `limit` pages per list, not a paged list): those never cited, the most cited, and those
 * most cited in replies rated down.
 */
import { useEffect, useState } from "preact/hooks";
import type { PagesReport, PageUse } from "../../src/contract/analytics.ts";
import { api, qs } from "../api.ts";
import { safeUrl } from "../markdown.tsx";
import { urlLabel } from "../names.ts";
import { Cell } from "../table.tsx";
import type { Filters } from "./insights-questions.tsx";

/** The wire types, from the contract (type-only: nothing of src/ reaches the bundle). */
type Report = PagesReport;

/** The most the API lists of each. */
const MOST = 100;

function PageTable(props: { pages: PageUse[]; counts: boolean; kbName: ((id: string) => string) | null }) {
  return (
    <div class="table-wrap">
      <table class="reflow">
        <thead>
          <tr>
            <th scope="col">Page</th>
            {props.kbName && <th scope="col">Knowledge base</th>}
            {props.counts && <th scope="col">Citations</th>}
            {props.counts && <th scope="col">In answers rated down</th>}
          </tr>
        </thead>
        <tbody>
          {props.pages.map((p) => {
            const href = safeUrl(p.url);
            return (
              <tr key={`${p.knowledge_base_id} ${p.url}`}>
                <Cell label="Page" class="prose">
                  {href ? (
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      {p.title || urlLabel(p.url)}
                    </a>
                  ) : (
                    p.title || p.url
                  )}
                  <span class="meta"> {urlLabel(p.url)}</span>
                </Cell>
                {props.kbName && <Cell label="Knowledge base">{props.kbName(p.knowledge_base_id)}</Cell>}
                {props.counts && <Cell label="Citations">{p.citations}</Cell>}
                {props.counts && <Cell label="Rated down">{p.down_citations}</Cell>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function PagesSection({ filters, kbName }: { filters: Filters; kbName: (id: string | null) => string }) {
  const [limit, setLimit] = useState(20);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState("");
  const path = `/v1/analytics/pages${qs({ knowledge_base_id: filters.kb, from: filters.from, to: filters.toApi, limit })}`;
  useEffect(() => {
    let live = true;
    setError("");
    api<Report>("GET", path).then(
      (r) => live && setReport(r),
      (e) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [path]);
  const names = filters.kb ? null : kbName;
  return (
    <section aria-labelledby="pages-heading">
      <h2 id="pages-heading">Pages</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!report && !error && <p aria-busy="true">Loading…</p>}
      {report && (
        <>
          <h3>Never cited ({report.never_cited_total})</h3>
          <p class="hint">
            Pages no answer of the period cited, oldest update first: out of date, hard to find, or not needed.
            {report.never_cited_total > report.never_cited.length &&
              ` The first ${report.never_cited.length} of ${report.never_cited_total}.`}
          </p>
          {report.never_cited.length === 0 ? (
            <p class="empty">Every page was cited at least once in this period.</p>
          ) : (
            <PageTable pages={report.never_cited} counts={false} kbName={names} />
          )}
          {report.never_cited_total > report.never_cited.length && limit < MOST && (
            <p>
              <button type="button" onClick={() => setLimit(MOST)}>
                Show up to {MOST} pages
              </button>
            </p>
          )}
          <h3>Cited most</h3>
          {report.cited.length === 0 ? (
            <p class="empty">No answer of this period cited a page.</p>
          ) : (
            <PageTable pages={report.cited} counts={true} kbName={names} />
          )}
          <h3>Cited in answers rated down</h3>
          <p class="hint">Pages behind the answers people disliked, most often first: worth a read.</p>
          {report.down_rated.length === 0 ? (
            <p class="empty">No answer citing a page was rated down in this period.</p>
          ) : (
            <PageTable pages={report.down_rated} counts={true} kbName={names} />
          )}
        </>
      )}
    </section>
  );
}

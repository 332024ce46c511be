/**
 * A knowledge base's web sources: each with its last sync (status, counts, when it ended, the URLs
 * it could not store), "Sync now" and delete; the form adds one. While a sync runs, its source is
 * read again every 2 s so the counts move; polling stops when no sync runs or the view goes.
 */
import { useEffect, useState } from "preact/hooks";
import type { Source, SyncPages } from "../../src/contract/sources.ts";
import { api } from "../api.ts";
import { Cell, when } from "../table.tsx";
import { WebSourceForm } from "./web-source-form.tsx";

/** The wire types, from the contract (type-only: nothing of src/ reaches the bundle). */
export type WebSource = Source;
type SourceSync = NonNullable<Source["last_sync"]>;

const POLL_MS = 2_000;

/** The counts that say what a sync did, in the order it does it. */
const COUNTS: [keyof SyncPages, string][] = [
  ["discovered", "found"],
  ["fetched", "fetched"],
  ["not_modified", "not modified"],
  ["created", "created"],
  ["updated", "updated"],
  ["deleted", "deleted"],
  ["failed", "failed"],
];

function SyncCounts({ pages }: { pages: SyncPages }) {
  return <span>{COUNTS.map(([k, label]) => `${pages[k]} ${label}`).join(", ")}</span>;
}

/** Why it stopped, and the URLs not stored, behind a disclosure (up to 50 of them). */
function SyncErrors({ sync }: { sync: SourceSync }) {
  if (!sync.error && !sync.errors.length) return <>—</>;
  return (
    <>
      {sync.error && <p class={sync.status === "completed" ? "hint" : "error"}>{sync.error}</p>}
      {sync.errors.length > 0 && (
        <details>
          <summary>{sync.errors.length} URL(s) not stored</summary>
          <ul class="results">
            {sync.errors.map((e) => (
              <li>
                <span class="url">{e.url}</span>: {e.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

export function WebSources({ kb, onSynced }: { kb: string; onSynced: () => void }) {
  const [sources, setSources] = useState<WebSource[]>([]);
  const [error, setError] = useState("");
  const base = `/v1/knowledge_bases/${kb}/sources`;
  const load = () =>
    api<{ data: WebSource[] }>("GET", base).then(
      (r) => setSources(r.data),
      (e) => setError(e.message),
    );
  useEffect(() => void load(), [kb]);
  const put = (s: WebSource) => setSources((list) => list.map((x) => (x.id === s.id ? s : x)));

  // The ids of the sources whose sync runs: the effect restarts when that set changes.
  const running = sources
    .filter((s) => s.last_sync?.status === "running")
    .map((s) => s.id)
    .join(" ");
  useEffect(() => {
    if (!running) return;
    let gone = false;
    const timer = setInterval(async () => {
      for (const id of running.split(" ")) {
        const s = await api<WebSource>("GET", `${base}/${id}`).catch(() => null);
        if (gone || !s) continue;
        put(s);
        // Its documents changed: the list beside this one and the knowledge base's counts are read again.
        if (s.last_sync?.status !== "running") onSynced();
      }
    }, POLL_MS);
    return () => {
      gone = true;
      clearInterval(timer);
    };
  }, [kb, running]);

  const sync = async (s: WebSource) => {
    try {
      setError("");
      const started = await api<SourceSync>("POST", `${base}/${s.id}/sync`);
      put({ ...s, last_sync: started });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const remove = async (s: WebSource) => {
    if (!confirm(`Delete the source ${s.url} and its ${s.document_count} document(s)?`)) return;
    await api("DELETE", `${base}/${s.id}`).catch((e) => setError(e.message));
    await load();
    onSynced();
  };
  return (
    <section aria-labelledby="sources-heading">
      <h2 id="sources-heading">Web sources</h2>
      <p class="hint">Sites crawled into this knowledge base and kept in sync.</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {sources.length > 0 && (
        <div class="table-wrap">
          <table class="reflow">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Type</th>
                <th scope="col">Last sync</th>
                <th scope="col">Pages</th>
                <th scope="col">Documents</th>
                <th scope="col">Problems</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((s) => (
                <tr key={s.id}>
                  <Cell label="URL" class="url">
                    {s.url}
                  </Cell>
                  <Cell label="Type">{s.type}</Cell>
                  <Cell label="Last sync">
                    {s.last_sync ? (
                      <span class={`sync-${s.last_sync.status}`} aria-live="polite">
                        {s.last_sync.status}
                        {s.last_sync.finished_at ? ` ${when(s.last_sync.finished_at)}` : "…"}
                      </span>
                    ) : (
                      "never"
                    )}
                  </Cell>
                  <Cell label="Pages">{s.last_sync ? <SyncCounts pages={s.last_sync.pages} /> : "—"}</Cell>
                  <Cell label="Documents">{s.document_count}</Cell>
                  <Cell label="Problems">{s.last_sync ? <SyncErrors sync={s.last_sync} /> : "—"}</Cell>
                  <Cell label="Actions" class="actions">
                    <button type="button" onClick={() => sync(s)} disabled={s.last_sync?.status === "running"}>
                      Sync now<span class="visually-hidden"> {s.url}</span>
                    </button>{" "}
                    <button type="button" class="danger" onClick={() => remove(s)}>
                      Delete<span class="visually-hidden"> {s.url}</span>
                    </button>
                  </Cell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <WebSourceForm kb={kb} onAdded={(s) => setSources((list) => [s, ...list])} />
    </section>
  );
}

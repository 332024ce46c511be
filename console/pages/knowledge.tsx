/**
 * Knowledge: knowledge bases (list, create, delete), their documents (list, filter by URL prefix,
 * delete), uploads by drag and drop (multipart, progress bar, per-file results) and a search tester.
 */
import { useEffect, useState } from "preact/hooks";
import { api, qs, session } from "../api.ts";
import { safeUrl } from "../markdown.tsx";

interface Kb {
  id: string;
  name: string;
  description: string | null;
  document_count: number;
  passage_count: number;
}
interface Doc {
  id: string;
  url: string;
  title: string;
  bytes: number;
  passage_count: number;
}
interface UploadResult {
  file?: string;
  line?: number;
  status: string;
  error?: { message: string };
}

export function Knowledge() {
  const [kbs, setKbs] = useState<Kb[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [error, setError] = useState("");
  const load = () =>
    api("GET", "/v1/knowledge_bases?limit=100").then(
      (r) => setKbs(r.data),
      (e) => setError(e.message),
    );
  useEffect(() => void load(), []);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const kb = await api("POST", "/v1/knowledge_bases", { name: name.trim() });
      setName("");
      await load();
      setSelected(kb.id);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async (kb: Kb) => {
    if (!confirm(`Delete the knowledge base "${kb.name}" and its documents?`)) return;
    await api("DELETE", `/v1/knowledge_bases/${kb.id}`).catch((e) => setError(e.message));
    if (selected === kb.id) setSelected(null);
    await load();
  };
  const kb = kbs.find((k) => k.id === selected);
  return (
    <div class="stack">
      <h1>Knowledge</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section aria-labelledby="kbs-heading">
        <h2 id="kbs-heading">Knowledge bases</h2>
        <form class="row" onSubmit={create}>
          <label for="kb-name">New knowledge base</label>
          <input id="kb-name" value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit">Create</button>
        </form>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Documents</th>
                <th scope="col">Passages</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {kbs.map((k) => (
                <tr key={k.id} class={k.id === selected ? "active" : ""}>
                  <td>{k.name}</td>
                  <td>{k.document_count}</td>
                  <td>{k.passage_count}</td>
                  <td>
                    <button type="button" onClick={() => setSelected(k.id)}>
                      Open<span class="visually-hidden"> {k.name}</span>
                    </button>{" "}
                    <button type="button" class="danger" onClick={() => remove(k)}>
                      Delete<span class="visually-hidden"> {k.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {kb && <KbDetail kb={kb} onChange={load} />}
    </div>
  );
}

function KbDetail({ kb, onChange }: { kb: Kb; onChange: () => unknown }) {
  const [docs, setDocs] = useState<Doc[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [prefix, setPrefix] = useState("");
  const [error, setError] = useState("");
  const load = async (more = false) => {
    try {
      const page = await api(
        "GET",
        `/v1/knowledge_bases/${kb.id}/documents${qs({ limit: 50, url_prefix: prefix, cursor: more ? cursor : undefined })}`,
      );
      setDocs((d) => (more ? [...d, ...page.data] : page.data));
      setCursor(page.pagination.next_cursor);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), [kb.id, prefix]);
  const remove = async (d: Doc) => {
    await api("DELETE", `/v1/knowledge_bases/${kb.id}/documents/${d.id}`).catch((e) => setError(e.message));
    await load();
    onChange();
  };
  return (
    <>
      <section aria-labelledby="docs-heading">
        <h2 id="docs-heading">Documents in {kb.name}</h2>
        <Upload
          kb={kb.id}
          onDone={() => {
            void load();
            onChange();
          }}
        />
        <p class="row">
          <label for="prefix">Filter by URL prefix</label>
          <input id="prefix" type="search" value={prefix} onInput={(e) => setPrefix(e.currentTarget.value)} />
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">URL</th>
                <th scope="col">Passages</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {docs.map((d) => (
                <tr key={d.id}>
                  <td>{d.title}</td>
                  <td class="url">{d.url}</td>
                  <td>{d.passage_count}</td>
                  <td>
                    <button type="button" class="danger" onClick={() => remove(d)}>
                      Delete<span class="visually-hidden"> {d.title}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {cursor && (
          <button type="button" onClick={() => load(true)}>
            More documents
          </button>
        )}
      </section>
      <SearchTester kb={kb.id} />
    </>
  );
}

/** Drag and drop (or pick) files: one multipart request with a progress bar (XHR reports upload progress; fetch does not). */
function Upload({ kb, onDone }: { kb: string; onDone: () => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [results, setResults] = useState<UploadResult[]>([]);
  const [over, setOver] = useState(false);
  const [error, setError] = useState("");
  const send = (files: FileList | File[]) => {
    const list = [...files];
    if (!list.length) return;
    const form = new FormData();
    for (const f of list) form.append("files", f, f.name);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/v1/knowledge_bases/${kb}/documents`);
    xhr.setRequestHeader("authorization", `Bearer ${session.key()}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && setProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => {
      setProgress(100);
      const body = JSON.parse(xhr.responseText || "null");
      if (xhr.status >= 400) setError(body?.error?.message ?? `HTTP ${xhr.status}`);
      else setResults(body?.results ?? [{ file: list[0]!.name, status: xhr.status === 201 ? "created" : "replaced" }]);
      onDone();
    };
    xhr.onerror = () => setError("The upload failed (network).");
    setError("");
    setResults([]);
    setProgress(0);
    xhr.send(form);
  };
  return (
    <fieldset
      class={`dropzone${over ? " over" : ""}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        send(e.dataTransfer?.files ?? []);
      }}
    >
      <legend>Upload files</legend>
      <label for="files">Drop .md, .txt, .html or .jsonl files here, or choose them:</label>
      <input
        id="files"
        type="file"
        multiple
        accept=".md,.markdown,.txt,.html,.htm,.jsonl"
        onChange={(e) => send(e.currentTarget.files ?? [])}
      />
      {progress !== null && (
        <progress max={100} value={progress} aria-label="Upload progress">
          {progress}%
        </progress>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {results.length > 0 && (
        <ul class="results" aria-label="Upload results">
          {results.map((r) => (
            <li class={r.status}>
              {r.file ?? ""}
              {r.line ? `:${r.line}` : ""} — {r.status}
              {r.error ? `: ${r.error.message}` : ""}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

function SearchTester({ kb }: { kb: string }) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<any[] | null>(null);
  const [error, setError] = useState("");
  const search = async (e: Event) => {
    e.preventDefault();
    try {
      setError("");
      setHits((await api("POST", `/v1/knowledge_bases/${kb}/search`, { query, limit: 8 })).data);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="search-heading">
      <h2 id="search-heading">Search tester</h2>
      <form class="row" onSubmit={search}>
        <label for="query">Query</label>
        <input id="query" type="search" required value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {hits && hits.length === 0 && <p>No passage answers this query.</p>}
      {hits && (
        <ol class="hits">
          {hits.map((h) => (
            <li>
              <p>
                <strong>{h.heading || h.title}</strong> <span class="score">score {Number(h.score).toFixed(3)}</span>
              </p>
              {safeUrl(h.url) ? (
                <a href={safeUrl(h.url)} target="_blank" rel="noopener noreferrer">
                  {h.url}
                </a>
              ) : (
                h.url
              )}
              <p class="plain">{h.content}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

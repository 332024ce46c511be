/**
 * A document (#/knowledge/<kb>/<doc>): what it says and how it was cut — its stored text and its
 * passages in order (GET …/documents/:doc_id and …/passages), the units search ranks and replies cite.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { safeUrl } from "../markdown.tsx";
import { useKbName } from "../names.ts";
import { when } from "../table.tsx";

interface Doc {
  id: string;
  url: string;
  title: string;
  bytes: number;
  passage_count: number;
  metadata: Record<string, unknown>;
  updated_at: string;
  content: string;
}
interface Passage {
  id: string;
  position: number;
  heading: string;
  content: string;
}

export function DocumentView({ kb, doc }: { kb: string; doc: string }) {
  const [document, setDocument] = useState<Doc | null>(null);
  const [passages, setPassages] = useState<Passage[] | null>(null);
  const [error, setError] = useState("");
  const kbName = useKbName(kb);
  useEffect(() => {
    const base = `/v1/knowledge_bases/${encodeURIComponent(kb)}/documents/${encodeURIComponent(doc)}`;
    api<Doc>("GET", base).then(setDocument, (e) => setError(e.message));
    api<{ data: Passage[] }>("GET", `${base}/passages`).then(
      (r) => setPassages(r.data),
      (e) => setError(e.message),
    );
  }, [kb, doc]);
  const back = (
    <p>
      <a href={`#/knowledge/${encodeURIComponent(kb)}`}>← Documents in {kbName || "the knowledge base"}</a>
    </p>
  );
  if (error)
    return (
      <div class="stack">
        {back}
        <p class="error" role="alert">
          {error}
        </p>
      </div>
    );
  if (!document) return <p aria-busy="true">Loading…</p>;
  const href = safeUrl(document.url);
  const metadata = Object.keys(document.metadata ?? {}).length ? JSON.stringify(document.metadata, null, 2) : "";
  return (
    <div class="stack document">
      {back}
      <h1>{document.title}</h1>
      <dl class="facts">
        <dt>URL</dt>
        <dd class="url">
          {href ? (
            <a href={href} target="_blank" rel="noopener noreferrer">
              {document.url}
            </a>
          ) : (
            document.url
          )}
        </dd>
        <dt>Knowledge base</dt>
        <dd>{kbName}</dd>
        <dt>Size</dt>
        <dd>
          {document.bytes.toLocaleString("en")} bytes, {document.passage_count} passages
        </dd>
        <dt>Updated</dt>
        <dd>{when(document.updated_at)}</dd>
      </dl>
      {metadata && (
        <details>
          <summary>Metadata</summary>
          <pre class="plain">{metadata}</pre>
        </details>
      )}
      <section aria-labelledby="passages-heading">
        <h2 id="passages-heading">Passages ({passages?.length ?? "…"})</h2>
        <p class="hint">What search ranks and replies cite, in document order.</p>
        <ol class="passages">
          {passages?.map((p) => (
            <li class="card">
              <p class="passage-head">
                <span class="score">#{p.position + 1}</span> <strong>{p.heading || "(no heading)"}</strong>{" "}
                <span class="score">{p.content.length.toLocaleString("en")} characters</span>
              </p>
              <p class="plain">{p.content}</p>
            </li>
          ))}
        </ol>
      </section>
      <section aria-labelledby="text-heading">
        <h2 id="text-heading">Text</h2>
        <p class="hint">As stored (HTML as its text).</p>
        <pre class="plain text">{document.content}</pre>
      </section>
    </div>
  );
}

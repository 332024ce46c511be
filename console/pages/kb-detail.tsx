/**
 * One knowledge base: its documents (filter by URL prefix, open, delete), uploads, its web
 * sources (web-sources.tsx) and the search tester.
 */
import { useEffect, useState } from "preact/hooks";
import { api, qs } from "../api.ts";
import { Cell } from "../table.tsx";
import type { Kb } from "./knowledge.tsx";
import { SearchTester } from "./search-tester.tsx";
import { Upload } from "./upload.tsx";
import { WebSources } from "./web-sources.tsx";

interface Doc {
  id: string;
  url: string;
  title: string;
  bytes: number;
  passage_count: number;
}

export const documentHref = (kb: string, doc: string) =>
  `#/knowledge/${encodeURIComponent(kb)}/${encodeURIComponent(doc)}`;

export function KbDetail({ kb, onChange }: { kb: Kb; onChange: () => unknown }) {
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
        {kb.description && <p class="hint">{kb.description}</p>}
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
          <table class="reflow">
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
                  <Cell label="Title">
                    <a href={documentHref(kb.id, d.id)}>{d.title}</a>
                  </Cell>
                  <Cell label="URL" class="url">
                    {d.url}
                  </Cell>
                  <Cell label="Passages">{d.passage_count}</Cell>
                  <Cell label="Actions" class="actions">
                    <button type="button" class="danger" onClick={() => remove(d)}>
                      Delete<span class="visually-hidden"> {d.title}</span>
                    </button>
                  </Cell>
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
      <WebSources
        kb={kb.id}
        onSynced={() => {
          void load();
          onChange();
        }}
      />
      <SearchTester kb={kb.id} />
    </>
  );
}

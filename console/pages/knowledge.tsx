/**
 * Knowledge: knowledge bases (list; create with a description and a language; delete); the one
 * opened (#/knowledge/<id>) shows its documents, uploads and the search tester (kb-detail.tsx).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { Cell } from "../table.tsx";
import { KbDetail } from "./kb-detail.tsx";

export interface Kb {
  id: string;
  name: string;
  description: string;
  language: string | null;
  document_count: number;
  passage_count: number;
}

/** The languages a knowledge base may be set to (docs/api.md, knowledge bases). */
const LANGUAGES = [
  "english",
  "german",
  "french",
  "spanish",
  "italian",
  "portuguese",
  "dutch",
  "danish",
  "swedish",
  "norwegian",
  "finnish",
  "russian",
  "turkish",
  "hungarian",
  "romanian",
  "greek",
  "arabic",
  "indonesian",
  "polish",
  "czech",
  "slovak",
  "ukrainian",
  "chinese",
  "japanese",
  "korean",
  "simple",
];

export const openKb = (id: string | null) => {
  location.hash = id ? `#/knowledge/${encodeURIComponent(id)}` : "#/knowledge";
};

export function Knowledge({ open }: { open: string | null }) {
  const [kbs, setKbs] = useState<Kb[]>([]);
  const [error, setError] = useState("");
  const load = () =>
    api("GET", "/v1/knowledge_bases?limit=100").then(
      (r) => setKbs(r.data),
      (e) => setError(e.message),
    );
  useEffect(() => void load(), []);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const body: Record<string, unknown> = { name: String(f.get("name")).trim() };
    if (String(f.get("description")).trim()) body.description = String(f.get("description")).trim();
    if (f.get("language")) body.language = f.get("language");
    try {
      setError("");
      const kb = await api("POST", "/v1/knowledge_bases", body);
      form.reset();
      await load();
      openKb(kb.id);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async (kb: Kb) => {
    if (!confirm(`Delete the knowledge base "${kb.name}" and its documents?`)) return;
    await api("DELETE", `/v1/knowledge_bases/${kb.id}`).catch((e) => setError(e.message));
    if (open === kb.id) openKb(null);
    await load();
  };
  const kb = kbs.find((k) => k.id === open);
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
        <form class="grid" onSubmit={create}>
          <label>
            New knowledge base <input name="name" required maxLength={100} />
          </label>
          <label>
            Description <input name="description" maxLength={2000} />
          </label>
          <label>
            Language{" "}
            <select name="language">
              <option value="">Detect per document</option>
              {LANGUAGES.map((l) => (
                <option value={l}>{l}</option>
              ))}
            </select>
          </label>
          <button type="submit">Create</button>
        </form>
        <div class="table-wrap">
          <table class="reflow">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Language</th>
                <th scope="col">Documents</th>
                <th scope="col">Passages</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {kbs.map((k) => (
                <tr key={k.id} class={k.id === open ? "active" : ""}>
                  <Cell label="Name">
                    <span class="clip" title={k.name}>
                      {k.name}
                    </span>
                  </Cell>
                  <Cell label="Description" class="prose">
                    {k.description || "—"}
                  </Cell>
                  <Cell label="Language">{k.language ?? "detected"}</Cell>
                  <Cell label="Documents">{k.document_count}</Cell>
                  <Cell label="Passages">{k.passage_count}</Cell>
                  <Cell label="Actions" class="actions">
                    <button type="button" onClick={() => openKb(k.id)}>
                      Open<span class="visually-hidden"> {k.name}</span>
                    </button>{" "}
                    <button type="button" class="danger" onClick={() => remove(k)}>
                      Delete<span class="visually-hidden"> {k.name}</span>
                    </button>
                  </Cell>
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

/** The search tester: a query against one knowledge base, its ranked passages with their scores. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { safeUrl } from "../markdown.tsx";

export function SearchTester({ kb }: { kb: string }) {
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

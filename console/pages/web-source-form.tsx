/** The form that adds a web source to a knowledge base (POST …/sources): its first sync starts at once. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { WebSource } from "./web-sources.tsx";

const TYPES = [
  ["auto", "Auto: sitemaps, llms.txt and links"],
  ["sitemap", "Sitemap only"],
  ["crawl", "Links from the start page"],
  ["llms_txt", "llms.txt only"],
] as const;

/** One glob per line (blank lines dropped); absent when there are none, so the server's default holds. */
const globs = (text: FormDataEntryValue | null) => {
  const list = String(text ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
};

/** A whole number typed in the field, or absent (the server's default). */
const number = (text: FormDataEntryValue | null) => (String(text ?? "").trim() ? Number(text) : undefined);

export function WebSourceForm({ kb, onAdded }: { kb: string; onAdded: (source: WebSource) => void }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const add = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const body = {
      url: String(f.get("url")).trim(),
      type: f.get("type"),
      include: globs(f.get("include")),
      exclude: globs(f.get("exclude")),
      max_pages: number(f.get("max_pages")),
      refresh_interval_hours: number(f.get("refresh_hours")),
    };
    try {
      setError("");
      setBusy(true);
      const source = await api<WebSource>("POST", `/v1/knowledge_bases/${kb}/sources`, body);
      form.reset();
      onAdded(source);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="grid" onSubmit={add} aria-labelledby="add-source-heading">
      <h3 id="add-source-heading" class="full">
        Add a web source
      </h3>
      <label>
        Start URL <input name="url" type="url" required maxLength={2048} placeholder="https://docs.example.com/" />
      </label>
      <label>
        How pages are found
        <select name="type">
          {TYPES.map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </select>
      </label>
      <label>
        Include (globs, one per line)
        <textarea name="include" rows={2} placeholder="/guide/**" />
      </label>
      <label>
        Exclude (globs, one per line)
        <textarea name="exclude" rows={2} placeholder="/guide/archive/**" />
      </label>
      <label>
        Max pages <input name="max_pages" type="number" min={1} max={100000} placeholder="1000" />
      </label>
      <label>
        Refresh every (hours){" "}
        <input name="refresh_hours" type="number" min={1} max={8760} placeholder="only when asked" />
      </label>
      <button type="submit" disabled={busy}>
        Add source
      </button>
      {error && (
        <p class="error full" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

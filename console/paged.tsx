/**
 * A cursor-paged list read page by page ("More" appends the next page), started again from its
 * first page whenever its path (filters included) changes.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api.ts";

export interface Paged<T> {
  /** Null until the first page arrives. */
  items: T[] | null;
  error: string;
  busy: boolean;
  /** Reads the next page; null when there is none. */
  more: (() => void) | null;
}

/** `path` already has a query (`?limit=…`); null reads nothing (filters not valid yet). */
export function usePaged<T>(path: string | null): Paged<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // The path a page was asked for: a page that arrives after the filters changed is dropped.
  const current = useRef(path);
  const load = async (after: string | null) => {
    if (!path) return;
    setBusy(true);
    try {
      const page = await api("GET", after ? `${path}&cursor=${encodeURIComponent(after)}` : path);
      if (current.current !== path) return;
      setItems((old) => (after ? [...(old ?? []), ...page.data] : page.data));
      setCursor(page.pagination.next_cursor);
      setError("");
    } catch (e) {
      if (current.current === path) setError((e as Error).message);
    } finally {
      if (current.current === path) setBusy(false);
    }
  };
  useEffect(() => {
    current.current = path;
    setItems(null);
    setCursor(null);
    setError("");
    void load(null);
  }, [path]);
  return { items, error, busy, more: cursor ? () => void load(cursor) : null };
}

/**
 * What a paged list shows around its items: its error, "Loading…" until the first page, `empty`
 * when there is nothing, and a "More" button (named `label`) while pages are left.
 */
export function PagedState<T>(props: { list: Paged<T>; empty: ComponentChildren; label: string }) {
  const { items, error, busy, more } = props.list;
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {items === null && !error && <p aria-busy="true">Loading…</p>}
      {items?.length === 0 && <p class="empty">{props.empty}</p>}
      {more && (
        <p>
          <button type="button" onClick={more} disabled={busy}>
            {busy ? "Loading…" : props.label}
          </button>
        </p>
      )}
    </>
  );
}

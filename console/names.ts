/**
 * Names the console shows in place of ids and URLs, looked up once per tab: a knowledge base's
 * name (GET /v1/models/:id answers any key with the name of a knowledge base it may use), a
 * source's document title (an admin key reads the knowledge base's documents by URL prefix; a
 * chat key may not, and sees the URL's host and path), a key's name (admin: the keys list).
 */
import { useEffect, useState } from "preact/hooks";
import { api, qs } from "./api.ts";

const kbNames = new Map<string, Promise<string | null>>();
/** The names already answered: a component shows them in its first render, not one frame later. */
const kbNamesKnown = new Map<string, string | null>();
const titles = new Map<string, Promise<string | null>>();
let keyNames: Promise<Map<string, string>> | undefined;

/** The name of knowledge base `id`, or null when this key may not use it (or it is gone). */
export function kbName(id: string): Promise<string | null> {
  let name = kbNames.get(id);
  if (!name) {
    name = api<{ id: string }>("GET", `/v1/models/${encodeURIComponent(id)}`).then(
      (m) => m.id,
      () => null,
    );
    void name.then((n) => kbNamesKnown.set(id, n));
    kbNames.set(id, name);
  }
  return name;
}

/** The title of the document at `url` in knowledge base `kb` (admin keys), or null. */
export function sourceTitle(kb: string, url: string): Promise<string | null> {
  const at = `${kb} ${url}`;
  let title = titles.get(at);
  if (!title) {
    const path = `/v1/knowledge_bases/${encodeURIComponent(kb)}/documents${qs({ url_prefix: url, limit: 20 })}`;
    title = api<{ data: { url: string; title: string }[] }>("GET", path).then(
      (page) => page.data.find((d) => d.url === url)?.title ?? null,
      () => null,
    );
    titles.set(at, title);
  }
  return title;
}

/** Key ids to names (admin keys). */
export function keyNamesById(): Promise<Map<string, string>> {
  keyNames ??= api<{ data: { id: string; name: string }[] }>("GET", "/v1/keys?limit=100").then(
    (page) => new Map(page.data.map((k) => [k.id, k.name])),
    () => new Map(),
  );
  return keyNames;
}

/** Forgets what was looked up (a sign-out: the next key may see other names). */
export function forgetNames(): void {
  kbNames.clear();
  kbNamesKnown.clear();
  titles.clear();
  keyNames = undefined;
}

/** A URL as a short label: host and path, without the scheme. */
export function urlLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return url;
  }
}

/** The knowledge base's name once known ("" while looking, the id when this key may not name it). */
export function useKbName(id: string | null | undefined): string {
  const [, answered] = useState(0);
  useEffect(() => {
    // Always a render once answered: the name may arrive between this render and its effect.
    if (id) void kbName(id).then(() => answered((n) => n + 1));
  }, [id]);
  const known = id ? kbNamesKnown.get(id) : undefined;
  return !id || known === undefined ? "" : (known ?? id);
}

/** Titles of `urls` in knowledge base `kb`, as they arrive (admin keys only; empty otherwise). */
export function useTitles(kb: string | null | undefined, urls: string[], admin: boolean): Map<string, string> {
  const [found, setFound] = useState(new Map<string, string>());
  const wanted = urls.join("\n");
  useEffect(() => {
    if (!kb || !admin || !urls.length) return;
    let live = true;
    void Promise.all(urls.map(async (u) => [u, await sourceTitle(kb, u)] as const)).then((pairs) => {
      if (live) setFound(new Map(pairs.filter((p): p is [string, string] => p[1] !== null)));
    });
    return () => {
      live = false;
    };
  }, [kb, wanted, admin]);
  return found;
}

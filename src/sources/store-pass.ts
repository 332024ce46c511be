/**
 * The pass after a crawl: every page this sync saw (fetched now, or unchanged since the last
 * sync) is read back from source_pages twice, a page of rows at a time. First every page's blocks
 * are observed, so boilerplate is told against the whole site, not only the pages that changed;
 * then each page is cleaned and stored only when its text differs from what its document holds.
 * Memory stays the filter's hashes and one page of rows, whatever the site's size.
 */
import type { SyncPages } from "../contract/sources.ts";
import { ingestDocuments, type KnowledgeDoc, sourceDocumentUrls } from "../knowledge/index.ts";
import { sha256Hex } from "./clean-pages.ts";
import { BoilerplateFilter, SiteTitleFilter } from "./content/index.ts";
import { type PageRow, seenPages, setStoredHashes } from "./page-store.ts";
import type { SourceRow } from "./store.ts";
import type { SyncDeps } from "./sync.ts";

const ROWS_PER_READ = 100;

interface PassState {
  pages: SyncPages;
  note: (url: string, reason: string) => void;
  /** Writes progress and renews the lease (throws when the sync was stopped). */
  progress: () => Promise<void>;
}

async function* allSeen(deps: SyncDeps, sourceId: string, syncId: string): AsyncGenerator<PageRow[]> {
  let after = "";
  for (;;) {
    const rows = await seenPages(deps.db, sourceId, syncId, after, ROWS_PER_READ);
    if (!rows.length) return;
    yield rows;
    after = rows[rows.length - 1]!.url;
  }
}

export async function storePass(deps: SyncDeps, source: SourceRow, syncId: string, state: PassState): Promise<void> {
  const filter = new BoilerplateFilter();
  const titles = new SiteTitleFilter();
  for await (const rows of allSeen(deps, source.id, syncId))
    for (const row of rows) {
      filter.observe(row.markdown);
      titles.observe(row.title);
    }
  // Several URLs may name one document (redirects, canonical): the first row in URL order stores it.
  const done = new Set<string>();
  for await (const rows of allSeen(deps, source.id, syncId)) {
    const fresh = rows.filter((row) => !done.has(row.documentUrl) && done.add(row.documentUrl));
    const held = await sourceDocumentUrls(
      deps.db,
      source.id,
      fresh.map((r) => r.documentUrl),
    );
    const changed: { doc: KnowledgeDoc; hash: string }[] = [];
    for (const row of fresh) {
      const content = filter.clean(row.markdown).trim();
      if (!content) {
        state.pages.skipped++;
        state.note(row.documentUrl, "empty_page");
        continue;
      }
      const title = titles.clean(row.title) || row.documentUrl;
      const hash = await sha256Hex(`${title}\n${content}`);
      if (hash === row.storedHash && held.has(row.documentUrl)) {
        state.pages.unchanged++;
        continue;
      }
      const doc: KnowledgeDoc = { url: row.documentUrl, title, content };
      changed.push({ doc, hash });
    }
    await storeChanged(deps, source, changed, state);
    await state.progress();
  }
}

async function storeChanged(
  deps: SyncDeps,
  source: SourceRow,
  changed: { doc: KnowledgeDoc; hash: string }[],
  state: PassState,
): Promise<void> {
  if (!changed.length) return;
  const hashes = new Map(changed.map((c) => [c.doc.url, c.hash]));
  const stored = new Map<string, string>();
  await ingestDocuments(
    deps.db,
    changed.map((c) => c.doc),
    {
      kbId: source.kbId,
      sourceId: source.id,
      now: new Date(deps.now()),
      onStored: (doc, { created, passages }) => {
        if (created) state.pages.created++;
        else state.pages.updated++;
        stored.set(doc.url, hashes.get(doc.url)!);
        deps.metrics?.ingestDocuments.inc();
        deps.metrics?.ingestPassages.inc(passages);
      },
      onSkipped: (doc) => {
        state.pages.skipped++;
        state.note(doc.url, "url_held_by_another_document");
      },
      onError: (doc, error) => {
        state.pages.failed++;
        // The database's message may quote the page's text: logs and errors get its class only.
        state.note(doc.url, "not_stored");
        deps.logger.warn({ url: doc.url, error_type: (error as Error)?.name }, "a crawled page could not be stored");
      },
    },
  );
  await setStoredHashes(deps.db, source.id, stored);
}

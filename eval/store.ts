/**
 * A knowledge base to evaluate on: a fresh in-memory PGlite (or the PostgreSQL database in
 * DATABASE_URL) with the corpus ingested into a knowledge base of its own, which is deleted
 * afterwards — so runs on one PostgreSQL database never see each other's documents, and every
 * search is scoped to that knowledge base as a chat's is.
 */
import type { Db, Store } from "../src/db/client.ts";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { createKnowledgeBase, deleteKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import type { Corpus } from "./load.ts";

export interface Base {
  db: Db;
  kbId: string;
  store: "pglite" | "postgres";
}

/**
 * `shared`: a store the caller opened and keeps (a test run's own), migrated here and left open;
 * without it, one is opened for this evaluation and closed after it.
 */
export async function withCorpus<T>(
  corpus: Corpus,
  label: string,
  fn: (base: Base) => Promise<T>,
  shared?: Store,
): Promise<T> {
  const store = shared ?? (process.env.DATABASE_URL ? openPostgres(process.env.DATABASE_URL) : await openPglite());
  try {
    await migrate(store);
    const kb = await createKnowledgeBase(store.db, { name: `eval ${label} ${Date.now()}` });
    try {
      const t0 = performance.now();
      await ingestDocuments(store.db, corpus.docs, { kbId: kb.id });
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      console.log(`corpus: ${corpus.docs.length} documents (${corpus.problems} bad lines) ingested in ${seconds} s`);
      return await fn({ db: store.db, kbId: kb.id, store: store.kind });
    } finally {
      await deleteKnowledgeBase(store.db, kb.id);
    }
  } finally {
    if (!shared) await store.close();
  }
}

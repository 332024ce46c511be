/**
 * Embeds the passages that have no vector from the configured model: after an ingest (only the
 * new passages are missing) and after the model is configured or changed (all of them). Works
 * in pages so a large knowledge base never sits in memory, and reports progress after each.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Embedder } from "./client.ts";
import { saveEmbeddings } from "./store.ts";

export interface BackfillProgress {
  done: number;
  total: number;
}

export interface BackfillOptions {
  /** Passages read and embedded per round. */
  pageSize?: number;
  onProgress?: (p: BackfillProgress) => void;
  signal?: AbortSignal;
}

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

/** What a passage's vector is computed from: its document title, heading and text. */
export const embeddingInput = (title: string, heading: string, content: string) =>
  `${title}${heading && heading !== title ? `\n${heading}` : ""}\n\n${content}`;

/** Passages without a vector of `embedder.model`. */
export async function countMissingEmbeddings(db: Db, model: string): Promise<number> {
  const [row] = rowsOf(
    await db.execute(sql`select count(*)::int as n from chunks c
      left join chunk_embeddings e on e.chunk_id = c.id and e.model = ${model} where e.chunk_id is null`),
  );
  return Number(row?.n ?? 0);
}

/** Embeds every passage missing a vector; returns how many were embedded. Throws EmbeddingsError after retries. */
export async function backfillEmbeddings(db: Db, embedder: Embedder, options: BackfillOptions = {}): Promise<number> {
  const pageSize = options.pageSize ?? 256;
  const total = await countMissingEmbeddings(db, embedder.model);
  let done = 0;
  options.onProgress?.({ done, total });
  for (;;) {
    if (options.signal?.aborted) return done;
    const page = rowsOf(
      await db.execute(sql`select c.id, d.title, c.heading, c.content from chunks c
        join documents d on d.id = c.document_id
        left join chunk_embeddings e on e.chunk_id = c.id and e.model = ${embedder.model}
        where e.chunk_id is null order by c.id limit ${pageSize}`),
    );
    if (page.length === 0) return done;
    const vectors = await embedder.embed(
      page.map((r) => embeddingInput(String(r.title), String(r.heading), String(r.content))),
      { signal: options.signal },
    );
    await saveEmbeddings(
      db,
      embedder.model,
      page.map((r, i) => ({ chunkId: String(r.id), vector: vectors[i]! })),
    );
    done += page.length;
    options.onProgress?.({ done, total: Math.max(total, done) });
  }
}

/**
 * Hybrid search: the BM25F ranking (search.ts) and the nearest passages by cosine distance
 * (HNSW index) fused by reciprocal rank fusion — a passage scores Σ 1/(k + rank) over the two
 * lists, k = 60 by default (Cormack, Clarke & Büttcher, SIGIR 2009: k = 60 works across
 * collections and needs no score calibration between the lists).
 *
 * Abstention stays BM25F's: when BM25F finds the question off-topic, search returns nothing,
 * unless `minSimilarity` is set and the nearest passage is at least that similar (cosine) —
 * a threshold that depends on the model, so it is opt-in (EMBEDDINGS_MIN_SIMILARITY).
 *
 * The question is embedded once per search (`embedQuestion`); when the model fails or is slow,
 * that search is BM25F alone: the failure is logged once and counted (`stats.fallbacks`,
 * `onFallback`), and the chat goes on.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { SearchHit } from "../search-options.ts";
import type { Embedder } from "./client.ts";
import { vectorLiteral } from "./store.ts";

/** Counters an operator's metrics can read (or be told through `onFallback`). */
export interface SemanticStats {
  /** Questions embedded. */
  embedded: number;
  /** Searches that fell back to BM25F alone because the embeddings model failed. */
  fallbacks: number;
}

export interface SemanticSearchConfig {
  embedder: Embedder;
  /** RRF's k. */
  rrfK?: number;
  /** Passages taken from each list before fusion. */
  depth?: number;
  /** Answer an off-topic-looking question (per BM25F) when the nearest passage is this similar. */
  minSimilarity?: number | undefined;
  /** Milliseconds the question's embedding may take before the search goes on without it. */
  timeoutMs?: number;
  /** Told of each fallback (metrics); `warn` logs it. Neither sees the question. */
  onFallback?: (error: Error) => void;
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

export interface SemanticSearch {
  readonly embedder: Embedder;
  readonly rrfK: number;
  readonly depth: number;
  readonly minSimilarity: number | undefined;
  readonly stats: SemanticStats;
  /** The question's vector, or undefined after a failure (logged and counted). */
  embedQuestion(question: string): Promise<number[] | undefined>;
}

export const RRF_K = 60;

export function createSemanticSearch(config: SemanticSearchConfig): SemanticSearch {
  const stats: SemanticStats = { embedded: 0, fallbacks: 0 };
  const timeoutMs = config.timeoutMs ?? 5_000;
  return {
    embedder: config.embedder,
    rrfK: config.rrfK ?? RRF_K,
    depth: config.depth ?? 40,
    minSimilarity: config.minSimilarity,
    stats,
    async embedQuestion(question) {
      try {
        // One attempt: a chat waits for it, and BM25F alone is a good answer.
        const [v] = await config.embedder.embed([question], { attempts: 1, signal: AbortSignal.timeout(timeoutMs) });
        stats.embedded++;
        return v;
      } catch (error) {
        stats.fallbacks++;
        const e = error instanceof Error ? error : new Error(String(error));
        config.warn?.(
          { error: e.message, model: config.embedder.model },
          "embeddings failed: this search used BM25F alone",
        );
        config.onFallback?.(e);
        return undefined;
      }
    },
  };
}

/** A passage from the vector index: a search hit's passage fields, with its cosine similarity. */
export type Neighbour = Pick<SearchHit, "id" | "documentId" | "url" | "title" | "heading" | "content"> & {
  similarity: number;
};

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

/**
 * The `depth` passages nearest to `vector` (cosine), through the HNSW index; with `kbId`, of
 * that knowledge base only (knowledge_nearest_in, embeddings/store.ts).
 */
export async function nearestPassages(
  db: Db,
  model: string,
  vector: number[],
  depth: number,
  kbId?: string,
): Promise<Neighbour[]> {
  const v = vectorLiteral(vector);
  const near =
    kbId === undefined
      ? sql`select e.chunk_id, e.embedding <=> ${v}::vector as distance from chunk_embeddings e
        where e.model = ${model} order by e.embedding <=> ${v}::vector limit ${depth}`
      : sql`select chunk_id, distance from knowledge_nearest_in(${v}::vector, ${model}::text, ${kbId}::text, ${depth}::integer)`;
  const rows = rowsOf(
    await db.execute(sql`with near as (${near})
      select c.id, d.id as document_id, d.url, d.title, c.heading, c.content, 1 - n.distance as similarity
      from near n join chunks c on c.id = n.chunk_id join documents d on d.id = c.document_id
      order by n.distance, c.id`),
  );
  return rows.map((r) => ({
    id: String(r.id),
    documentId: String(r.document_id),
    url: String(r.url),
    title: String(r.title),
    heading: String(r.heading),
    content: String(r.content),
    similarity: Number(r.similarity),
  }));
}

/** Reciprocal rank fusion of ranked id lists: id → Σ 1/(k + rank), rank from 1. */
export function reciprocalRankFusion(lists: string[][], k: number): Map<string, number> {
  const fused = new Map<string, number>();
  for (const list of lists) for (const [i, id] of list.entries()) fused.set(id, (fused.get(id) ?? 0) + 1 / (k + i + 1));
  return fused;
}

/**
 * Front door of hybrid search (opt-in with EMBEDDINGS_PROVIDER): the embeddings client, the
 * vector store, the backfill and the fused search. README "Hybrid search" tells how to turn it on.
 */
import type { Env } from "../../config/env.ts";
import { createEmbedder, type Embedder } from "./client.ts";
import { createSemanticSearch, type SemanticSearch, type SemanticSearchConfig } from "./hybrid.ts";

export { backfillEmbeddings, countMissingEmbeddings, embeddingInput } from "./backfill.ts";
export { createEmbedder, type Embedder, type EmbeddingsConfig, EmbeddingsError } from "./client.ts";
export { createSemanticSearch, nearestPassages, RRF_K, type SemanticSearch, type SemanticStats } from "./hybrid.ts";
export { MissingVectorExtension, prepareVectorStore } from "./store.ts";

/** The embedder EMBEDDINGS_* describe, or undefined when EMBEDDINGS_PROVIDER is unset. */
export function embedderFromEnv(env: Env): Embedder | undefined {
  if (!env.EMBEDDINGS_PROVIDER || !env.EMBEDDINGS_BASE_URL || !env.EMBEDDINGS_MODEL || !env.EMBEDDINGS_DIMENSIONS)
    return undefined;
  return createEmbedder({
    baseUrl: env.EMBEDDINGS_BASE_URL,
    model: env.EMBEDDINGS_MODEL,
    apiKey: env.EMBEDDINGS_API_KEY,
    dimensions: env.EMBEDDINGS_DIMENSIONS,
    sendDimensions: env.EMBEDDINGS_SEND_DIMENSIONS,
    batchSize: env.EMBEDDINGS_BATCH_SIZE,
  });
}

/** Hybrid search as EMBEDDINGS_* configure it, or undefined (BM25F alone). */
export function semanticFromEnv(
  env: Env,
  hooks: Pick<SemanticSearchConfig, "warn" | "onFallback"> = {},
): SemanticSearch | undefined {
  const embedder = embedderFromEnv(env);
  if (!embedder) return undefined;
  return createSemanticSearch({
    embedder,
    rrfK: env.EMBEDDINGS_RRF_K,
    minSimilarity: env.EMBEDDINGS_MIN_SIMILARITY,
    timeoutMs: env.EMBEDDINGS_TIMEOUT_MS,
    ...hooks,
  });
}

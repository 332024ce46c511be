/**
 * Hybrid search at start (serve): with EMBEDDINGS_PROVIDER set, prepares the vector store —
 * refusing to start, naming the `vector` extension, when the database lacks it — and embeds in
 * the background every passage without a vector of the configured model (a new install, a new
 * or changed model), logging progress. Searches are hybrid over the passages embedded so far.
 */
import type { Env } from "../config/env.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import {
  backfillEmbeddings,
  prepareVectorStore,
  type SemanticSearch,
  semanticFromEnv,
} from "../knowledge/embeddings/index.ts";

export interface StartedEmbeddings {
  semantic: SemanticSearch | undefined;
  /** Stops the background backfill (close). */
  stop(): Promise<void>;
}

export async function startEmbeddings(env: Env, db: Db, logger: Logger): Promise<StartedEmbeddings> {
  const semantic = semanticFromEnv(env, {
    warn: (fields, msg) => logger.warn(fields, msg),
  });
  if (!semantic) return { semantic, stop: async () => {} };
  const { recreated } = await prepareVectorStore(db, semantic.embedder.dimensions);
  if (recreated)
    logger.warn(
      { dimensions: semantic.embedder.dimensions },
      "embeddings: vector length changed; re-embedding every passage",
    );
  const abort = new AbortController();
  let lastLogged = 0;
  const running = backfillEmbeddings(db, semantic.embedder, {
    signal: abort.signal,
    onProgress: ({ done, total }) => {
      if (total === 0) return;
      if (done === 0 || done === total || Date.now() - lastLogged > 5_000) {
        lastLogged = Date.now();
        logger.info({ done, total, model: semantic.embedder.model }, "embeddings: backfill progress");
      }
    },
  }).catch((error) => {
    if (!abort.signal.aborted)
      logger.warn(
        { error: (error as Error).message },
        "embeddings: backfill stopped; passages without a vector are found by BM25F only until the next start",
      );
  });
  logger.info(
    { model: semantic.embedder.model, dimensions: semantic.embedder.dimensions },
    "hybrid search on (BM25F + vectors, RRF)",
  );
  return {
    semantic,
    async stop() {
      abort.abort();
      await running;
    },
  };
}

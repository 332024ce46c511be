/**
 * Hybrid search at start (serve): with EMBEDDINGS_PROVIDER set, prepares the vector store —
 * refusing to start, naming the `vector` extension, when the database lacks it — and embeds in
 * the background every passage without a vector of the configured model (a new install, a new
 * or changed model, documents ingested since — through this server's admin socket, another
 * instance or a CLI on the same PostgreSQL), looking again every `pollMs` and logging progress.
 * Searches are hybrid over the passages embedded so far (BM25F finds the others).
 */
import type { Env } from "../config/env.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { backfillEmbeddings, prepareVectorStore, type SemanticSearch, semanticFromEnv } from "../knowledge/index.ts";

export interface StartedEmbeddings {
  semantic: SemanticSearch | undefined;
  /** Stops the background embedding (close). */
  stop(): Promise<void>;
}

export async function startEmbeddings(env: Env, db: Db, logger: Logger, pollMs = 10_000): Promise<StartedEmbeddings> {
  const semantic = semanticFromEnv(env, { warn: (fields, msg) => logger.warn(fields, msg) });
  if (!semantic) return { semantic, stop: async () => {} };
  const { dimensions, model } = semantic.embedder;
  const { recreated } = await prepareVectorStore(db, dimensions);
  if (recreated) logger.warn({ dimensions }, "embeddings: vector length changed; re-embedding every passage");
  const abort = new AbortController();
  const running = embedContinuously(db, semantic, logger, pollMs, abort.signal);
  logger.info({ model, dimensions }, "hybrid search on (BM25F + vectors, RRF)");
  return {
    semantic,
    async stop() {
      abort.abort();
      await running;
    },
  };
}

/** Backfill, then look for passages without a vector every `pollMs`, until `signal` aborts. */
async function embedContinuously(
  db: Db,
  semantic: SemanticSearch,
  logger: Logger,
  pollMs: number,
  signal: AbortSignal,
): Promise<void> {
  const model = semantic.embedder.model;
  let failing = false;
  while (!signal.aborted) {
    let lastLogged = 0;
    try {
      await backfillEmbeddings(db, semantic.embedder, {
        signal,
        onProgress: ({ done, total }) => {
          if (total === 0) return;
          if (done === 0 || done === total || Date.now() - lastLogged > 5_000) {
            lastLogged = Date.now();
            logger.info({ done, total, model }, "embeddings: embedding passages");
          }
        },
      });
      failing = false;
    } catch (error) {
      // Logged once per outage, not once per poll; the passages wait for the next round.
      if (!signal.aborted && !failing)
        logger.warn({ error: (error as Error).message, model }, "embeddings: could not embed new passages; will retry");
      failing = true;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

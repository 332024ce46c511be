/**
 * Parley as a library: `createParley({ store })` returns an Elysia plugin serving the whole
 * /v1 API. Mount it in your own app (under any prefix) on Bun or Deno. Web-standard APIs only.
 */
import { Elysia } from "elysia";
import type { Agent } from "./agent/index.ts";
import { retrievalAgent } from "./agent/index.ts";
import { analyticsRoutes, createIngester, forgetOldQuestions } from "./analytics/index.ts";
import { keyRoutes, setupRoutes } from "./auth/index.ts";
import { backupRoutes } from "./backup/index.ts";
import { chatRoutes, startSweeper } from "./chat/index.ts";
import { createLogger, type Logger } from "./config/logger.ts";
import { checkOptions, DEFAULT_OPTIONS, type ParleyOptions, type SourceOptions } from "./config/options.ts";
import { conversationRoutes, lastQuestionOf, replyRoutes, touchConversation } from "./conversations/index.ts";
import type { Store } from "./db/client.ts";
import { feedbackListRoutes, feedbackRoutes } from "./feedback/index.ts";
import { fallback, type RouteRef } from "./http/fallback.ts";
import { type Embedder, knowledgeRoutes } from "./knowledge/index.ts";
import { mcpRoutes } from "./mcp/index.ts";
import { createMetrics, type Metrics } from "./metrics/index.ts";
import { openAiRoutes, responsesRoutes } from "./openai-compat/index.ts";
import { forgetIdleSubjects } from "./ratelimit/index.ts";
import { createReplies, type Replies } from "./replies/index.ts";
import { createSourceSyncs, type SourceSyncs, sourceRoutes } from "./sources/index.ts";
import { NOOP_TRACING, type Tracing } from "./tracing/index.ts";
import { refusalCount, usageRoutes } from "./usage/index.ts";
import { forgetSpentProofs, widgetRoutes } from "./widget/index.ts";

/** What `createParley` needs; only `store` is required. */
export interface ParleyConfig {
  store: Store;
  /** Defaults to the retrieval agent over the store's knowledge base. */
  agent?: Agent;
  options?: Partial<Omit<ParleyOptions, "sources">> & { sources?: Partial<SourceOptions> };
  logger?: Logger;
  /** Milliseconds since the epoch; injectable so tests can move time (rate-limit windows). */
  now?: () => number;
  /**
   * Prometheus metrics: true builds a registry for this instance (read it as `.metrics` on the
   * plugin; app/ serves it at /metrics), or pass one to share. Off by default: nothing is recorded.
   */
  metrics?: boolean | Metrics;
  /**
   * Traces: `await createTracing({ endpoint })` exports spans over OTLP/HTTP; omitted, nothing is
   * recorded. `close()` flushes and shuts it down (it becomes this instance's).
   */
  tracing?: Tracing;
  /**
   * The embedding model hybrid search uses (`createEmbedder`; the server passes EMBEDDINGS_*):
   * analytics then groups questions into topics by meaning too (docs/analytics.md).
   */
  embedder?: Embedder;
}

/** What `createParley` adds to its plugin: the replies (shutdown drains them) and `close()`. */
export interface ParleyHandle {
  /** The replies of this instance: `drain(graceMs)` at shutdown, `running` for logs. */
  readonly replies: Pick<Replies, "drain" | "running">;
  /**
   * The web-source syncs of this instance: `tick()` runs the schedule now, `idle()` waits for the
   * running syncs; `start`/`stop` run or stop one source's (the server's admin socket: `parley sources`).
   */
  readonly sources: Pick<SourceSyncs, "tick" | "idle" | "start" | "stop">;
  /** Ends what this instance started: the sweeper, running replies (cut off), tails, lease timer, LISTEN, the tracing (flushed). The store stays open (it is yours). */
  close(): Promise<void>;
}

/**
 * The Parley /v1 API as an Elysia plugin. Builds its long-lived objects once — the replies
 * (notifier, lease keeper, tails, registry) and the sweeper — and `close()` ends them.
 */
export function createParley(config: ParleyConfig) {
  const options: ParleyOptions = {
    ...DEFAULT_OPTIONS,
    ...config.options,
    sources: { ...DEFAULT_OPTIONS.sources, ...config.options?.sources },
  };
  checkOptions(options);
  const base = {
    db: config.store.db,
    agent: config.agent ?? retrievalAgent(config.store.db),
    logger: config.logger ?? createLogger("info"),
    now: config.now ?? Date.now,
    metrics:
      config.metrics === true
        ? createMetrics(config.store.pool)
        : config.metrics === false
          ? undefined
          : config.metrics,
    tracing: config.tracing ?? NOOP_TRACING,
    options,
    // usage/ counts the requests the gate refuses, in the gate's own statement.
    refusals: refusalCount,
    writesRefused: config.store.writesRefused?.bind(config.store),
  };
  const replies = createReplies({ ...base, touchConversation });
  const ingester = createIngester(base.db, config.embedder);
  const deps = { ...base, replies };
  // Replies whose instance died end as failed within a lease and a half (docs/reliability.md).
  const sweeper = startSweeper(deps, Math.max(500, Math.floor(options.replyLeaseMs / 2)), [
    forgetIdleSubjects,
    forgetSpentProofs,
    // A small share of each beat (at most 200 replies or 250 ms of statements), so the sweep's other
    // work is never late and instances sharing a database do not crowd its pool with copy-ins.
    (db, now) =>
      ingester.catchUp(now, 200, 250).then(() => forgetOldQuestions(db, now, options.analyticsRetentionDays)),
  ]);
  const syncs = createSourceSyncs({ ...deps, sources: options.sources });
  const features = [
    chatRoutes(deps),
    conversationRoutes(deps),
    replyRoutes(deps),
    usageRoutes(deps),
    feedbackRoutes(deps),
    feedbackListRoutes(deps),
    knowledgeRoutes({ ...deps, lastQuestionOf: (key, id) => lastQuestionOf(deps.db, key, id) }),
    keyRoutes(deps),
    openAiRoutes(deps),
    responsesRoutes(deps),
    setupRoutes(deps),
    sourceRoutes({ ...deps, syncs }),
    widgetRoutes(deps),
    analyticsRoutes({ ...deps, ingester }),
    backupRoutes({ ...deps, store: config.store }),
  ] as const;
  // The fallback is built last, from the routes the features already declare (405 vs 404).
  const routes: RouteRef[] = features.flatMap((f) => f.routes.map((r) => ({ method: r.method, path: r.path })));
  const api = new Elysia({ prefix: "/v1" })
    .use(features[0])
    .use(features[1])
    .use(features[2])
    .use(features[3])
    .use(features[4])
    .use(features[5])
    .use(features[6])
    .use(features[7])
    .use(features[8])
    .use(features[9])
    .use(features[10])
    .use(features[11])
    .use(features[12])
    .use(features[13])
    .use(features[14])
    .use(fallback(deps.logger, routes));
  let closing: Promise<void> | undefined;
  const handle: ParleyHandle = {
    replies,
    sources: syncs,
    close: () =>
      (closing ??= (async () => {
        sweeper.stop();
        // Syncs end as cancelled (nothing deleted) before the store may close under them.
        await syncs.close();
        await replies.close();
        // After the replies: their last spans (the final write) are in the last export.
        await base.tracing.shutdown();
      })()),
  };
  // MCP clients are configured with one URL: /mcp beside /v1, not under it.
  // Metrics hold no timer or listener (gauges are read at scrape time): nothing to end on close.
  const plugin = new Elysia().use(api).use(mcpRoutes(deps));
  return Object.assign(plugin, handle, { metrics: deps.metrics, tracing: deps.tracing });
}

export type { Agent, AgentChunk, AgentInput, ChatTurn, Usage } from "./agent/index.ts";
export {
  DEFAULT_SYSTEM_PROMPT,
  type LlmAgentOptions,
  type LlmConfig,
  type LlmProvider,
  llmAgent,
  retrievalAgent,
} from "./agent/index.ts";
export { buildOpenApi, type OpenApiOptions } from "./app/openapi.ts";
export { createKey, getKey, listKeys, pageKeys, revokeKey, updateKey } from "./auth/index.ts";
export { createLogger, type Logger } from "./config/logger.ts";
export { DEFAULT_OPTIONS, type ParleyOptions } from "./config/options.ts";
export type { Plan } from "./contract/plans.ts";
export { openPglite, openPostgres, type Store } from "./db/client.ts";
export { migrate } from "./db/migrate.ts";
export {
  backfillEmbeddings,
  createEmbedder,
  createKnowledgeBase,
  createSemanticSearch,
  DEFAULT_KB_ID,
  detectLanguage,
  type EmbeddingsConfig,
  ingestDocuments,
  type KnowledgeDoc,
  LANGUAGES,
  type Language,
  MissingVectorExtension,
  parseJsonl,
  parseMarkdown,
  prepareVectorStore,
  type SemanticSearch,
  searchKnowledgeBase,
} from "./knowledge/index.ts";
export { createMetrics, type Metrics } from "./metrics/index.ts";
export { createTracing, type Tracing, type TracingConfig } from "./tracing/index.ts";

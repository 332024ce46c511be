/**
 * Parley as a library: `createParley({ store })` returns an Elysia plugin serving the whole
 * /v1 API. Mount it in your own app (under any prefix) on Bun or Deno. Web-standard APIs only.
 */
import { Elysia } from "elysia";
import { retrievalAgent } from "./agent/retrieval.ts";
import type { Agent } from "./agent/types.ts";
import { checkLimit } from "./auth/limits.ts";
import { chatRoutes } from "./chat/index.ts";
import { startSweeper } from "./chat/sweeper.ts";
import { createLogger, type Logger } from "./config/logger.ts";
import { DEFAULT_OPTIONS, type ParleyOptions } from "./config/options.ts";
import { conversationRoutes } from "./conversations/index.ts";
import { replyRoutes } from "./conversations/replies.ts";
import type { Store } from "./db/client.ts";
import { feedbackRoutes } from "./feedback/index.ts";
import { fallback, type RouteRef } from "./http/fallback.ts";
import { createMetrics, type Metrics } from "./metrics/index.ts";
import { RunRegistry } from "./runs/run.ts";
import { usageRoutes } from "./usage/index.ts";

/** What `createParley` needs; only `store` is required. */
export interface ParleyConfig {
  store: Store;
  /** Defaults to the retrieval agent over the store's knowledge base. */
  agent?: Agent;
  options?: Partial<ParleyOptions>;
  logger?: Logger;
  /** Milliseconds since the epoch; injectable so tests can move time (rate-limit windows). */
  now?: () => number;
  /** Share one registry with the server so shutdown can drain streams. */
  runs?: RunRegistry;
  /**
   * Prometheus metrics: true builds a registry for this instance (read it as `.metrics` on the
   * plugin; app/ serves it at /metrics), or pass one to share. Off by default: nothing is recorded.
   */
  metrics?: boolean | Metrics;
}

/** The Parley /v1 API as an Elysia plugin. */
export function createParley(config: ParleyConfig) {
  const options: ParleyOptions = { ...DEFAULT_OPTIONS, ...config.options };
  // A host app passes these directly: refuse nonsense at start, not on the first request.
  for (const [plan, l] of Object.entries(options.plans)) {
    checkLimit(`options.plans.${plan}.rpm`, l.rpm);
    checkLimit(`options.plans.${plan}.rpd`, l.rpd);
  }
  // Same bounds as REPLY_LEASE_MS / REPLY_FLUSH_MS: a 0 here would spin timers.
  const within = (name: string, v: number, min: number, max: number) => {
    if (!Number.isSafeInteger(v) || v < min || v > max)
      throw new Error(`options.${name} must be an integer from ${min} to ${max}`);
  };
  within("replyLeaseMs", options.replyLeaseMs, 1_000, 600_000);
  within("replyFlushMs", options.replyFlushMs, 10, 1_000);
  const deps = {
    db: config.store.db,
    agent: config.agent ?? retrievalAgent(config.store.db),
    logger: config.logger ?? createLogger("info"),
    now: config.now ?? Date.now,
    runs: config.runs ?? new RunRegistry(),
    metrics:
      config.metrics === true
        ? createMetrics(config.store.pool)
        : config.metrics === false
          ? undefined
          : config.metrics,
    options,
  };
  // Replies whose instance died end as failed within a lease and a half (docs/reliability.md).
  startSweeper(deps, Math.max(500, Math.floor(options.replyLeaseMs / 2)));
  const features = [
    chatRoutes(deps),
    conversationRoutes(deps),
    replyRoutes(deps),
    usageRoutes(deps),
    feedbackRoutes(deps),
  ] as const;
  // The fallback is built last, from the routes the features already declare (405 vs 404).
  const routes: RouteRef[] = features.flatMap((f) => f.routes.map((r) => ({ method: r.method, path: r.path })));
  const plugin = new Elysia({ prefix: "/v1" })
    .use(features[0])
    .use(features[1])
    .use(features[2])
    .use(features[3])
    .use(features[4])
    .use(fallback(deps.logger, routes));
  // Metrics hold no timer or listener (gauges are read at scrape time): nothing to end on close.
  return Object.assign(plugin, { metrics: deps.metrics });
}

export {
  DEFAULT_SYSTEM_PROMPT,
  type LlmAgentOptions,
  type LlmConfig,
  type LlmProvider,
  llmAgent,
} from "./agent/llm/index.ts";
export { retrievalAgent } from "./agent/retrieval.ts";
export type { Agent, AgentChunk, AgentInput, ChatTurn, Usage } from "./agent/types.ts";
export { buildOpenApi, type OpenApiOptions } from "./app/openapi.ts";
export { createKey, listKeys, revokeKey, updateKey } from "./auth/keys-admin.ts";
export { createLogger, type Logger } from "./config/logger.ts";
export { DEFAULT_OPTIONS, type ParleyOptions } from "./config/options.ts";
export type { Plan } from "./contract/plans.ts";
export { openPglite, openPostgres, type Store } from "./db/client.ts";
export { migrate } from "./db/migrate.ts";
export { type KnowledgeDoc, parseJsonl, parseMarkdown } from "./knowledge/parse.ts";
export { ingestDocuments } from "./knowledge/service.ts";
export { createMetrics, type Metrics } from "./metrics/index.ts";
export { RunRegistry } from "./runs/run.ts";

/** The agent the server runs, chosen by the environment: the model agent when LLM_PROVIDER is set. */
import type { Env } from "../../config/env.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import type { SemanticSearch } from "../../knowledge/index.ts";
import type { Agent } from "../types.ts";
import { llmAgent } from "./agent.ts";
import type { LlmConfig } from "./config.ts";

/** The model agent LLM_* describe, or undefined (the retrieval agent) when LLM_PROVIDER is unset. */
export function agentFromEnv(env: Env, db: Db, logger: Logger, semantic?: SemanticSearch): Agent | undefined {
  const config = llmConfigFromEnv(env);
  if (!config) return undefined;
  logger.info(
    {
      provider: config.provider,
      model: config.model,
      base_url: config.baseUrl ?? "(provider default)",
      rewrite: config.rewrite,
      agentic: config.agentic ? config.maxSearchCalls : false,
    },
    "model agent",
  );
  return llmAgent(db, config, { logger, semantic });
}

export function llmConfigFromEnv(env: Env): LlmConfig | undefined {
  if (!env.LLM_PROVIDER || !env.LLM_MODEL) return undefined;
  return {
    provider: env.LLM_PROVIDER,
    model: env.LLM_MODEL,
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY,
    systemPrompt: env.LLM_SYSTEM_PROMPT,
    maxOutputTokens: env.LLM_MAX_OUTPUT_TOKENS,
    maxReplyBytes: env.LLM_MAX_REPLY_BYTES,
    timeoutMs: env.LLM_TIMEOUT_MS,
    idleTimeoutMs: env.LLM_IDLE_TIMEOUT_MS,
    maxRetries: env.LLM_MAX_RETRIES,
    historyBudgetChars: env.LLM_HISTORY_BUDGET,
    rewrite: env.LLM_REWRITE === "on",
    rewriteTimeoutMs: env.LLM_REWRITE_TIMEOUT_MS,
    agentic: env.LLM_AGENTIC === "on",
    maxSearchCalls: env.LLM_TOOL_SEARCH_MAX,
  };
}

export { type LlmAgentOptions, llmAgent } from "./agent.ts";
export { DEFAULT_SYSTEM_PROMPT, type LlmConfig, type LlmProvider } from "./config.ts";

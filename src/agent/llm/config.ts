/**
 * What a model-backed agent needs to know: the provider's protocol and address, the model, and
 * the limits that keep a reply bounded. `agentFromEnv` fills it from LLM_* (config/env.ts);
 * library users pass it to `llmAgent` directly.
 */

export type LlmProvider = "openai-compatible" | "anthropic";

export interface LlmConfig {
  provider: LlmProvider;
  model: string;
  /** Defaults to the provider's public API (PUBLIC_BASE_URL). */
  baseUrl?: string;
  /** Optional for local servers (Ollama, vLLM, llama.cpp). Never logged. */
  apiKey?: string;
  systemPrompt?: string;
  /** Sent to the provider, and enforced locally: a reply is cut at this many text pieces (agent/cap.ts). */
  maxOutputTokens?: number;
  /** A reply is cut at this many UTF-8 bytes, whatever the provider sends (agent/cap.ts). */
  maxReplyBytes?: number;
  /** Until the first token, across retries (ms). */
  timeoutMs?: number;
  /** Between chunks once the reply has started (ms). */
  idleTimeoutMs?: number;
  /** Retries of transient failures (connection refused, 429, 5xx), only before the first token. */
  maxRetries?: number;
  /** The first retry's wait without a retry-after (ms); it doubles per retry, up to 5 s. Default 200. */
  retryBaseMs?: number;
  /** Characters of earlier turns sent with a message; the newest turns are kept. */
  historyBudgetChars?: number;
  /**
   * Before searching a follow-up (a message with history), the model condenses it into a
   * standalone search query: one short extra call (rewrite.ts). Default true.
   */
  rewrite?: boolean;
  /** The query rewrite's own deadline (ms); past it the search uses the message as it is. */
  rewriteTimeoutMs?: number;
  /** The model may search the knowledge base itself with a `search` tool (search-tool.ts). Default false. */
  agentic?: boolean;
  /** With `agentic`: the most `search` calls in one reply. */
  maxSearchCalls?: number;
}

export const PUBLIC_BASE_URL: Record<LlmProvider, string> = {
  "openai-compatible": "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

export const DEFAULT_SYSTEM_PROMPT = `You are a helpful assistant that answers questions using a knowledge base.
Answer from the numbered passages you are given; do not use outside knowledge for facts about the subject.
Cite the passages you rely on with their numbers in square brackets, such as [1] or [2][3], right after the statement they support.
If the passages do not contain the answer, say plainly that you could not find it in the knowledge base instead of guessing.
Be concise and answer in the language of the question.`;

/** Every setting with its default, as the agent uses it. */
export type ResolvedLlmConfig = Required<LlmConfig>;

export function resolveConfig(c: LlmConfig): ResolvedLlmConfig {
  if (!c.model) throw new Error("llmAgent: `model` is required");
  return {
    provider: c.provider,
    model: c.model,
    baseUrl: (c.baseUrl ?? PUBLIC_BASE_URL[c.provider]).replace(/\/+$/, ""),
    apiKey: c.apiKey ?? "",
    systemPrompt: c.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    maxOutputTokens: c.maxOutputTokens ?? 1024,
    maxReplyBytes: c.maxReplyBytes ?? 262_144,
    timeoutMs: c.timeoutMs ?? 60_000,
    idleTimeoutMs: c.idleTimeoutMs ?? 30_000,
    maxRetries: c.maxRetries ?? 2,
    retryBaseMs: c.retryBaseMs ?? 200,
    historyBudgetChars: c.historyBudgetChars ?? 24_000,
    rewrite: c.rewrite ?? true,
    rewriteTimeoutMs: c.rewriteTimeoutMs ?? 3_000,
    agentic: c.agentic ?? false,
    maxSearchCalls: c.maxSearchCalls ?? 3,
  };
}

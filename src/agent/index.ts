/**
 * agent/: what answers a question. `Agent` (types.ts) is the interface a run drives; the default,
 * `retrievalAgent`, answers from the knowledge base with no model (retrieval.ts); the model agent
 * over the AI SDK lives in llm/ (`agentFromEnv`, `llmAgent`). The one door other folders use.
 */
export {
  agentFromEnv,
  DEFAULT_SYSTEM_PROMPT,
  type LlmAgentOptions,
  type LlmConfig,
  type LlmProvider,
  llmAgent,
} from "./llm/index.ts";
export { retrievalAgent } from "./retrieval.ts";
export type { Agent, AgentChunk, AgentInput, ChatTurn, GenerationSettings, Usage } from "./types.ts";

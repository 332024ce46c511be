/**
 * The model-backed agent: retrieves passages for the message, gives them to the model numbered
 * with titles and URLs together with the earlier turns (trimmed to the budget), streams the
 * model's tokens as they come, then reports usage and the documents the answer cites.
 * Provider failures become `upstream_error` / `upstream_timeout` ApiErrors (see failure.ts).
 */
import { createLogger, type Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { capReply } from "../cap.ts";
import type { Agent, AgentChunk, AgentInput } from "../types.ts";
import { type LlmConfig, resolveConfig } from "./config.ts";
import { UpstreamFailure } from "./failure.ts";
import { languageModel } from "./model.ts";
import { findPassages } from "./passages.ts";
import { citedSources, conversation, systemPrompt } from "./prompt.ts";
import { type Piece, streamReply } from "./stream.ts";

export interface LlmAgentOptions {
  logger?: Logger;
}

export function llmAgent(db: Db, config: LlmConfig, { logger = createLogger("info") }: LlmAgentOptions = {}): Agent {
  const c = resolveConfig(config);
  const model = languageModel(c);
  return {
    async *respond({ history, message, signal, knowledgeBaseId }: AgentInput): AsyncIterable<AgentChunk> {
      const passages = await findPassages(db, message, history, knowledgeBaseId);
      signal.throwIfAborted();
      const prompt = {
        system: systemPrompt(c.systemPrompt, passages),
        messages: conversation(history, message, c.historyBudgetChars),
      };
      let answer = "";
      try {
        const limits = { maxTokens: c.maxOutputTokens, maxBytes: c.maxReplyBytes };
        for await (const chunk of capReply(chunks(streamReply(model, c, prompt, signal, logger)), limits)) {
          if (chunk.type === "token") answer += chunk.content;
          yield chunk;
        }
      } catch (error) {
        throw error instanceof UpstreamFailure ? error.toApiError(c) : error;
      }
      yield { type: "sources", sources: citedSources(answer, passages) };
    },
  };
}

/** The provider's pieces as the agent's chunks. */
async function* chunks(pieces: AsyncIterable<Piece>): AsyncGenerator<AgentChunk> {
  for await (const piece of pieces) {
    if (piece.type === "text") yield { type: "token", content: piece.text };
    else yield { type: "usage", usage: { input_tokens: piece.input, output_tokens: piece.output } };
  }
}

/**
 * The model-backed agent: retrieves passages for the message, gives them to the model numbered
 * with titles and URLs together with the earlier turns (trimmed to the budget), streams the
 * model's tokens as they come, then reports usage and the documents the answer cites.
 * Provider failures become `upstream_error` / `upstream_timeout` ApiErrors (see failure.ts).
 */
import { createLogger, type Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import type { SemanticSearch } from "../../knowledge/index.ts";
import { capReply } from "../cap.ts";
import type { Agent, AgentChunk, AgentInput } from "../types.ts";
import { CitationFilter } from "./citations.ts";
import { type LlmConfig, resolveConfig } from "./config.ts";
import { UpstreamFailure } from "./failure.ts";
import { languageModel } from "./model.ts";
import { findPassages } from "./passages.ts";
import { conversation, systemPrompt } from "./prompt.ts";
import { type Piece, streamReply } from "./stream.ts";

export interface LlmAgentOptions {
  logger?: Logger;
  /** Hybrid search (knowledge/embeddings); BM25F alone without it. */
  semantic?: SemanticSearch | undefined;
}

export function llmAgent(
  db: Db,
  config: LlmConfig,
  { logger = createLogger("info"), semantic }: LlmAgentOptions = {},
): Agent {
  const c = resolveConfig(config);
  const model = languageModel(c);
  return {
    async *respond({
      history,
      message,
      signal,
      knowledgeBaseId,
      settings = {},
      trace,
    }: AgentInput): AsyncIterable<AgentChunk> {
      const passages = await findPassages(db, message, history, knowledgeBaseId, semantic, trace);
      signal.throwIfAborted();
      const base = settings.instructions ? `${c.systemPrompt}\n\n${settings.instructions}` : c.systemPrompt;
      const prompt = {
        system: systemPrompt(base, passages),
        messages: conversation(history, message, c.historyBudgetChars),
        settings,
        // The AI SDK's spans (model, token counts; never the prompt or the answer) under the reply's.
        telemetry: trace?.modelTelemetry(),
      };
      // Every [n] the client sees names a passage that was given (citations.ts).
      const citations = new CitationFilter(passages.map((p) => p.url));
      try {
        // The client's max_tokens holds too when a provider ignores it (never more than the operator's).
        const maxTokens = Math.min(c.maxOutputTokens, settings.maxOutputTokens ?? c.maxOutputTokens);
        const limits = { maxTokens, maxBytes: c.maxReplyBytes };
        for await (const chunk of capReply(chunks(streamReply(model, c, prompt, signal, logger)), limits)) {
          if (chunk.type === "token") {
            const text = citations.push(chunk.content);
            if (text) yield { type: "token", content: text };
          } else {
            // A cut reply ends here: what the filter held back is shown before the finish.
            if (chunk.type === "finish") {
              const rest = citations.end();
              if (rest) yield { type: "token", content: rest };
            }
            yield chunk;
          }
        }
      } catch (error) {
        throw error instanceof UpstreamFailure ? error.toApiError(c) : error;
      }
      const rest = citations.end();
      if (rest) yield { type: "token", content: rest };
      yield { type: "sources", sources: citations.sources };
    },
  };
}

/** The provider's pieces as the agent's chunks. */
async function* chunks(pieces: AsyncIterable<Piece>): AsyncGenerator<AgentChunk> {
  for await (const piece of pieces) {
    if (piece.type === "text") yield { type: "token", content: piece.text };
    else if (piece.type === "length") yield { type: "finish", reason: "length" };
    else yield { type: "usage", usage: { input_tokens: piece.input, output_tokens: piece.output } };
  }
}

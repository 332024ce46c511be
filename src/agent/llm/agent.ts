/**
 * The model-backed agent: retrieves passages for the message (a follow-up first condensed into a
 * standalone query by the model: rewrite.ts), gives them to the model numbered with titles and
 * URLs together with the earlier turns (trimmed to the budget), streams the model's tokens as they
 * come — in agentic mode the model may search again with a tool (search-tool.ts) — with the
 * documents the answer cites so far before the text that first cites each, then reports usage
 * (every model call's) and the cited documents once more (the final list).
 * Provider failures become `upstream_error` / `upstream_timeout` ApiErrors (see failure.ts).
 */
import { createLogger, type Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import type { SemanticSearch } from "../../knowledge/index.ts";
import { capReply } from "../cap.ts";
import { certaintyOf } from "../certainty.ts";
import type { Agent, AgentChunk, AgentInput, Usage } from "../types.ts";
import { CitationFilter } from "./citations.ts";
import { type LlmConfig, resolveConfig } from "./config.ts";
import { UpstreamFailure } from "./failure.ts";
import { languageModel } from "./model.ts";
import { findPassages } from "./passages.ts";
import { conversation, systemPrompt } from "./prompt.ts";
import { condenseQuery } from "./rewrite.ts";
import { PassageList, searchTool, type ToolLoop } from "./search-tool.ts";
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
      // Tokens of calls other than the reply's own stream (the rewrite), added to its usage.
      const extra = { input: 0, output: 0 };
      let query = message;
      let searchHistory = history;
      if (c.rewrite && history.length > 0 && knowledgeBaseId) {
        const rewrite = await condenseQuery(model, c, history, message, signal, logger, trace);
        extra.input += rewrite.usage.input;
        extra.output += rewrite.usage.output;
        // A standalone query needs no history; without one the search resolves follow-ups itself.
        if (rewrite.query) [query, searchHistory] = [rewrite.query, []];
      }
      const passages = await findPassages(db, query, searchHistory, knowledgeBaseId, semantic, trace);
      signal.throwIfAborted();
      const list = new PassageList(passages);
      const loop: ToolLoop | undefined =
        c.agentic && knowledgeBaseId
          ? searchTool({
              list,
              maxCalls: c.maxSearchCalls,
              search: (q, t) => findPassages(db, q, [], knowledgeBaseId, semantic, t),
              trace,
            })
          : undefined;
      const base = settings.instructions ? `${c.systemPrompt}\n\n${settings.instructions}` : c.systemPrompt;
      const prompt = {
        system: systemPrompt(base, passages, loop ? c.maxSearchCalls : 0),
        messages: conversation(history, message, c.historyBudgetChars),
        settings,
        // The AI SDK's spans (model, token counts; never the prompt or the answer) under the reply's.
        telemetry: trace?.modelTelemetry(),
        loop,
      };
      // Every [n] the client sees names a passage that was given (citations.ts); the list grows
      // with each tool call, before the text that cites what it found.
      const citations = new CitationFilter(list.urls);
      let counted = false;
      try {
        // The client's max_tokens holds too when a provider ignores it (never more than the operator's).
        const maxTokens = Math.min(c.maxOutputTokens, settings.maxOutputTokens ?? c.maxOutputTokens);
        const limits = { maxTokens, maxBytes: c.maxReplyBytes };
        for await (const chunk of capReply(chunks(streamReply(model, c, prompt, signal, logger)), limits)) {
          if (chunk.type === "token") {
            yield* cited(citations, citations.push(chunk.content));
          } else {
            // A cut reply ends here: what the filter held back is shown before the finish.
            if (chunk.type === "finish") yield* cited(citations, citations.end());
            if (chunk.type === "usage") {
              counted = true;
              yield { type: "usage", usage: withExtra(chunk.usage, extra) };
            } else yield chunk;
          }
        }
      } catch (error) {
        throw error instanceof UpstreamFailure ? error.toApiError(c) : error;
      }
      yield* cited(citations, citations.end());
      // The provider reported nothing for the reply, yet the rewrite cost tokens: those still count.
      if (!counted && (extra.input || extra.output))
        yield { type: "usage", usage: withExtra({ input_tokens: null, output_tokens: null }, extra) };
      yield { type: "sources", sources: citations.sources };
      yield { type: "certainty", certainty: certaintyOf(passages, citations.sources.length) };
    },
  };
}

/**
 * Text the filter let through, after the sources it cites if it added any (the whole list so far):
 * a client then knows each `[k]`'s source before the token that shows it.
 */
function* cited(citations: CitationFilter, text: string): Generator<AgentChunk> {
  if (citations.sources.length > citations.announced) {
    citations.announced = citations.sources.length;
    yield { type: "sources", sources: [...citations.sources] };
  }
  if (text) yield { type: "token", content: text };
}

/** The reply's usage with the other calls' tokens added; a count stays null only when nothing is known. */
function withExtra(usage: Usage, extra: { input: number; output: number }): Usage {
  const add = (n: number | null, more: number) => (n === null && more === 0 ? null : (n ?? 0) + more);
  return { input_tokens: add(usage.input_tokens, extra.input), output_tokens: add(usage.output_tokens, extra.output) };
}

/** The provider's pieces as the agent's chunks. */
async function* chunks(pieces: AsyncIterable<Piece>): AsyncGenerator<AgentChunk> {
  for await (const piece of pieces) {
    if (piece.type === "text") yield { type: "token", content: piece.text };
    else if (piece.type === "length") yield { type: "finish", reason: "length" };
    else yield { type: "usage", usage: { input_tokens: piece.input, output_tokens: piece.output } };
  }
}

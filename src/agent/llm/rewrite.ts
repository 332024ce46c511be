/**
 * Query rewrite (condense): a follow-up such as "and how do I rotate it?" searches badly on its
 * own words. Before the search, the model turns it into a standalone query ("how to rotate an API
 * key") from the recent turns: one short, non-streamed call with its own deadline. It is a help,
 * never a failure: an error, a timeout or an empty answer leaves the search as it was (the
 * message with the history, knowledge/retrieve.ts), logged without any text. Its tokens are the
 * reply's too (agent.ts adds them to its usage).
 */
import { generateText, type LanguageModel } from "ai";
import type { Logger } from "../../config/logger.ts";
import { inSpan, NOOP_TRACE, type Trace } from "../../tracing/index.ts";
import type { ChatTurn } from "../types.ts";
import type { ResolvedLlmConfig } from "./config.ts";
import { classify } from "./failure.ts";

/** Enough for a query; a model that rambles is cut here and its first line kept. */
const MAX_QUERY_TOKENS = 64;
const MAX_QUERY_CHARS = 500;
/** Of the earlier turns, the newest that fit; an answer's tail says little about what was asked. */
const TRANSCRIPT_CHARS = 4_000;
const ANSWER_CHARS = 600;

export const REWRITE_PROMPT = `You turn the latest message of a conversation into a standalone search query for a knowledge base.
Resolve pronouns and references ("it", "that", "the second one") using the earlier turns, and keep the message's language and key terms.
Reply with the query only, on one line: no quotes, no explanation. If the message already stands on its own, repeat it.`;

export interface Rewrite {
  /** The standalone query; null when the rewrite failed, timed out or said nothing. */
  query: string | null;
  usage: { input: number; output: number };
}

/** The condensed query for `message`, or null (the caller searches as before). Throws only the run's abort. */
export async function condenseQuery(
  model: LanguageModel,
  c: ResolvedLlmConfig,
  history: ChatTurn[],
  message: string,
  signal: AbortSignal,
  logger: Logger,
  trace: Trace = NOOP_TRACE,
): Promise<Rewrite> {
  return inSpan(trace, "agent.rewrite", async (span) => {
    const usage = { input: 0, output: 0 };
    let outcome: "rewritten" | "empty" | "timeout" | "failed" = "failed";
    let query: string | null = null;
    const deadline = AbortSignal.timeout(c.rewriteTimeoutMs);
    const telemetry = span.trace.modelTelemetry();
    try {
      const result = await generateText({
        model,
        system: REWRITE_PROMPT,
        messages: [{ role: "user", content: rewriteRequest(history, message) }],
        maxOutputTokens: MAX_QUERY_TOKENS,
        temperature: 0,
        maxRetries: 0, // a retry would outlive the short deadline; the search goes on without it
        abortSignal: AbortSignal.any([signal, deadline]),
        ...(telemetry ? { telemetry } : {}),
      });
      usage.input = result.usage.inputTokens ?? 0;
      usage.output = result.usage.outputTokens ?? 0;
      query = cleanQuery(result.text);
      outcome = query ? "rewritten" : "empty";
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      outcome = deadline.aborted ? "timeout" : "failed";
      const failure = classify(error);
      // Never the provider's text: it may quote the conversation (failure.ts keeps identifiers only).
      logger.warn(
        {
          provider: c.provider,
          model: c.model,
          outcome,
          ...(outcome === "timeout" ? { timeout_ms: c.rewriteTimeoutMs } : { failure: failure.kind }),
          ...(failure.detail.status ? { status: failure.detail.status } : {}),
        },
        "query rewrite failed; searching with the message as it is",
      );
    }
    if (outcome === "empty") logger.debug({ provider: c.provider, model: c.model }, "query rewrite was empty");
    span.set({
      "parley.rewrite.outcome": outcome,
      "gen_ai.usage.input_tokens": usage.input,
      "gen_ai.usage.output_tokens": usage.output,
    });
    return { query, usage };
  });
}

/** The earlier turns (newest that fit, answers shortened) and the message, as one user message. */
export function rewriteRequest(history: ChatTurn[], message: string): string {
  const lines: string[] = [];
  let used = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i]!;
    const text =
      turn.role === "assistant" && turn.content.length > ANSWER_CHARS
        ? `${turn.content.slice(0, ANSWER_CHARS)}…`
        : turn.content;
    if (used + text.length > TRANSCRIPT_CHARS) break;
    used += text.length;
    lines.unshift(`${turn.role === "user" ? "User" : "Assistant"}: ${text}`);
  }
  return `Conversation so far:\n${lines.join("\n")}\n\nLatest message: ${message}\n\nStandalone search query:`;
}

/** The model's first non-empty line, without quotes or a "Query:" label; null when nothing is left. */
export function cleanQuery(text: string): string | null {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return null;
  const query = line
    .replace(/^(?:standalone\s+)?(?:search\s+)?query\s*:\s*/i, "")
    .replace(/^["'“«]+|["'”»]+$/g, "")
    .trim()
    .slice(0, MAX_QUERY_CHARS);
  return query || null;
}

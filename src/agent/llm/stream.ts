/**
 * One reply from the provider as text pieces and a final usage, with Parley's rules around the
 * AI SDK's stream: a deadline for the first token (LLM_TIMEOUT_MS, across retries), an idle
 * timeout between chunks after it, bounded retries of transient failures only before the first
 * token (honouring retry-after), and a stream that ends without its final chunk is a failure.
 * The SDK's own retries are off (maxRetries: 0): they wait 2 s, 4 s… regardless of our deadline.
 */
import { type LanguageModel, type ModelMessage, streamText, type TelemetryOptions } from "ai";
import type { Logger } from "../../config/logger.ts";
import type { GenerationSettings } from "../types.ts";
import type { ResolvedLlmConfig } from "./config.ts";
import { classify, UpstreamFailure } from "./failure.ts";
import type { ToolLoop } from "./search-tool.ts";

/** `length`: the provider ended the reply at its output cap (max_tokens). */
export type Piece =
  | { type: "text"; text: string }
  | { type: "length" }
  | { type: "usage"; input: number | null; output: number | null };

export interface Prompt {
  system: string;
  messages: ModelMessage[];
  /** The client's settings for this reply (max tokens, temperature, top_p, stop). */
  settings?: Pick<GenerationSettings, "maxOutputTokens" | "temperature" | "topP" | "stopSequences">;
  /** The AI SDK's telemetry (tracing/: recordInputs and recordOutputs off); absent, none. */
  telemetry?: TelemetryOptions | undefined;
  /** Agentic mode: the `search` tool and its loop (search-tool.ts); absent, one plain call. */
  loop?: Pick<ToolLoop, "tools" | "stopWhen" | "prepareStep"> | undefined;
}

/** Yields the reply; throws the run's abort reason when cancelled, an UpstreamFailure otherwise. */
export async function* streamReply(
  model: LanguageModel,
  c: ResolvedLlmConfig,
  prompt: Prompt,
  signal: AbortSignal,
  logger: Logger,
): AsyncGenerator<Piece> {
  const deadline = Date.now() + c.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const state = { started: false };
    try {
      yield* attemptStream(model, c, prompt, signal, deadline, state);
      return;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const failure = classify(error);
      const wait = failure.detail.retryAfterMs ?? Math.min(c.retryBaseMs * 2 ** attempt, 5_000);
      if (state.started || !failure.retryable || attempt >= c.maxRetries || Date.now() + wait >= deadline) {
        logFailure(logger, c, failure, attempt + 1, state.started);
        throw failure;
      }
      logger.warn(
        { ...describe(c, failure), attempt: attempt + 1, wait_ms: Math.round(wait) },
        "model provider failed before the first token; retrying",
      );
      await sleep(wait, signal);
    }
  }
}

async function* attemptStream(
  model: LanguageModel,
  c: ResolvedLlmConfig,
  prompt: Prompt,
  signal: AbortSignal,
  deadline: number,
  state: { started: boolean },
): AsyncGenerator<Piece> {
  const local = new AbortController();
  let timedOut: UpstreamFailure | undefined;
  let last = Date.now();
  // One timer, re-armed only when it fires early: no timer work per chunk.
  let timer: ReturnType<typeof setTimeout>;
  const check = () => {
    const due = state.started ? last + c.idleTimeoutMs : deadline;
    if (Date.now() < due) {
      timer = setTimeout(check, due - Date.now());
      return;
    }
    timedOut = new UpstreamFailure(state.started ? "timeout_idle" : "timeout_first");
    local.abort(timedOut);
  };
  timer = setTimeout(check, Math.max(0, deadline - Date.now()));
  try {
    const result = streamText({
      model,
      system: prompt.system,
      messages: prompt.messages,
      // A client may ask for fewer tokens than the operator's cap, never more.
      maxOutputTokens: Math.min(c.maxOutputTokens, prompt.settings?.maxOutputTokens ?? c.maxOutputTokens),
      temperature: prompt.settings?.temperature,
      topP: prompt.settings?.topP,
      stopSequences: prompt.settings?.stopSequences,
      maxRetries: 0,
      ...(prompt.telemetry ? { telemetry: prompt.telemetry } : {}),
      ...(prompt.loop
        ? { tools: prompt.loop.tools, stopWhen: prompt.loop.stopWhen, prepareStep: prompt.loop.prepareStep }
        : {}),
      abortSignal: AbortSignal.any([signal, local.signal]),
      // The default handler prints the error, request body (the user's messages) included.
      onError: () => {},
    });
    let finish:
      | {
          finishReason: string;
          rawFinishReason: string | undefined;
          totalUsage: { inputTokens?: number; outputTokens?: number };
        }
      | undefined;
    // Text a step wrote before its tool calls ("Let me look that up.") is kept apart from the next step's.
    let stepText = false;
    let gap = "";
    for await (const part of result.fullStream) {
      last = Date.now();
      if (part.type === "text-delta") {
        if (!part.text) continue;
        if (!state.started) {
          state.started = true;
          clearTimeout(timer); // from the first-token deadline to the idle timeout
          timer = setTimeout(check, c.idleTimeoutMs);
        }
        yield { type: "text", text: gap + part.text };
        stepText = true;
        gap = "";
      } else if (part.type === "finish-step") {
        if (stepText && part.finishReason === "tool-calls") gap = "\n\n";
        stepText = false;
      } else if (part.type === "error") {
        throw part.error;
      } else if (part.type === "finish") {
        finish = part;
      }
    }
    if (signal.aborted) throw signal.reason;
    if (timedOut) throw timedOut;
    // A reason the provider sent, or one the SDK only infers from a proper end; "interrupted",
    // "other" or "error" without one means the stream stopped short of its final chunk.
    if (
      !finish ||
      (finish.rawFinishReason === undefined && !["stop", "length", "content-filter"].includes(finish.finishReason))
    ) {
      throw new UpstreamFailure("incomplete");
    }
    if (finish.finishReason === "length") yield { type: "length" };
    const { inputTokens, outputTokens } = finish.totalUsage;
    if (inputTokens !== undefined || outputTokens !== undefined)
      yield { type: "usage", input: inputTokens ?? null, output: outputTokens ?? null };
  } catch (error) {
    if (timedOut && !signal.aborted) throw timedOut;
    throw error;
  } finally {
    clearTimeout(timer);
    local.abort(); // the consumer left early (run cancelled): close the upstream request
  }
}

const describe = (c: ResolvedLlmConfig, f: UpstreamFailure) => ({
  provider: c.provider,
  model: c.model,
  failure: f.kind,
  ...(f.detail.status ? { status: f.detail.status } : {}),
  ...(f.detail.providerType ? { provider_error: f.detail.providerType } : {}),
  ...(f.detail.providerCode ? { provider_code: f.detail.providerCode } : {}),
  ...(f.detail.providerRequestId ? { provider_request_id: f.detail.providerRequestId } : {}),
});

/** One line per failed reply; a refused key is an error with the fix, never with the provider's text. */
function logFailure(
  logger: Logger,
  c: ResolvedLlmConfig,
  f: UpstreamFailure,
  attempts: number,
  started: boolean,
): void {
  if (f.refusedKey) {
    logger.error(
      { ...describe(c, f), base_url: c.baseUrl },
      `the model provider refused the API key (HTTP ${f.detail.status}): check LLM_API_KEY`,
    );
    return;
  }
  // Never the provider's message: it may quote the user's text (describe keeps identifiers only).
  logger.warn({ ...describe(c, f), attempts, after_first_token: started }, "model provider failed");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

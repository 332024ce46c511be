/**
 * The provider's language model through the AI SDK: one maintained library for both wire
 * protocols (OpenAI-compatible Chat Completions, Anthropic Messages) with streaming, usage and
 * abort signals, on fetch only — so it runs on Bun, in the compiled binary and on Deno.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ResolvedLlmConfig } from "./config.ts";

// The SDK prints warnings (unsupported settings) to the console by default; our logger decides what is logged.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export function languageModel(c: ResolvedLlmConfig): LanguageModel {
  if (c.provider === "anthropic") {
    // x-api-key and anthropic-version headers are the provider package's.
    return createAnthropic({ baseURL: c.baseUrl, apiKey: c.apiKey || "none" })(c.model);
  }
  return createOpenAICompatible({
    name: "openai-compatible",
    baseURL: c.baseUrl,
    // No key: no Authorization header at all (local servers); otherwise `Bearer <key>`.
    ...(c.apiKey ? { apiKey: c.apiKey } : {}),
    // Asks for stream_options.include_usage, so the last chunk carries the token counts.
    includeUsage: true,
  }).chatModel(c.model);
}

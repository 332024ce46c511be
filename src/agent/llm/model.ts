/**
 * The provider's language model through the AI SDK: one maintained library for both wire
 * protocols (OpenAI-compatible Chat Completions, Anthropic Messages) with streaming, usage and
 * abort signals, on fetch only — so it runs on Bun, in the compiled binary and on Deno.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ResolvedLlmConfig } from "./config.ts";

// The SDK prints warnings (unsupported settings) to the console unless the global
// AI_SDK_LOG_WARNINGS says otherwise. Importing the library leaves that global alone (it is the
// host app's); the server, which owns its process, turns the console warnings off (server.ts).

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

/**
 * A loopback OpenAI-compatible Chat Completions server (POST …/chat/completions, stream: true):
 * `data: {chunk}` events, a final chunk with `finish_reason`, the usage chunk (empty `choices`)
 * when `stream_options.include_usage` is set, then `data: [DONE]` — as api.openai.com sends them.
 * Errors: `{"error": {message, type, param, code}}`, as a body or as an in-stream event.
 */
import { type FakeProvider, type FakeReply, type Protocol, startFake } from "./fake-provider.ts";

const OPENAI_ERRORS: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  404: ["invalid_request_error", "model_not_found"],
  429: ["rate_limit_exceeded", "rate_limit_exceeded"],
};

export const openaiProtocol: Protocol = {
  path: "/chat/completions",
  errorBody: (status, message) => {
    const [type, code] = OPENAI_ERRORS[status] ?? ["server_error", null];
    return { error: { message, type, param: null, code } };
  },
  async stream(reply: FakeReply, body: any, w) {
    const base = {
      id: "chatcmpl-fake0001",
      object: "chat.completion.chunk",
      created: 1_763_900_000,
      model: body?.model ?? "unknown",
      system_fingerprint: "fp_fake",
    };
    const chunk = (delta: object, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    const tokens = reply.tokens ?? ["Hello", " from", " the", " fake", "."];
    w.event(chunk({ role: "assistant", content: "", refusal: null }));
    for (const [i, content] of tokens.entries()) {
      if (reply.errorAfter === i) {
        w.event({
          error: {
            message: "The server had an error while processing your request.",
            type: "server_error",
            param: null,
            code: null,
          },
        });
        return;
      }
      if (reply.disconnectAfter === i) return w.cut();
      if (reply.truncateAfter === i) return;
      await w.pause(i === 0 ? reply.firstTokenDelayMs : reply.tokenDelayMs);
      w.event(chunk({ content }));
    }
    if (reply.disconnectAfter === tokens.length) return w.cut();
    if (reply.truncateAfter === tokens.length) return;
    w.event(chunk({}, reply.cutShort ? "length" : "stop"));
    const usage = reply.usage === undefined ? { input: 42, output: tokens.length } : reply.usage;
    if (body?.stream_options?.include_usage && usage) {
      w.event({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      });
    }
    w.event("[DONE]");
  },
};

export const startFakeOpenAI = (fallback?: FakeReply): FakeProvider => startFake(openaiProtocol, fallback);

/**
 * A loopback OpenAI-compatible Chat Completions server (POST …/chat/completions). Streamed
 * (`stream: true`): `data: {chunk}` events, a final chunk with `finish_reason`, the usage chunk
 * (empty `choices`) when `stream_options.include_usage` is set, then `data: [DONE]` — as
 * api.openai.com sends them. Tool calls are `delta.tool_calls` pieces (id, type and name first,
 * then the arguments' JSON in parts) ending with `finish_reason: "tool_calls"`. Not streamed: one
 * `chat.completion` body. Errors: `{"error": {message, type, param, code}}`, as a body or as an
 * in-stream event.
 */
import {
  type FakeProvider,
  type FakeReply,
  jsonPieces,
  type Protocol,
  startFake,
  tokensOf,
  toolCallsFor,
} from "./fake-provider.ts";

const OPENAI_ERRORS: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  404: ["invalid_request_error", "model_not_found"],
  429: ["rate_limit_exceeded", "rate_limit_exceeded"],
};

const callId = (body: { messages?: unknown[] } | null, i: number) => `call_fake${body?.messages?.length ?? 0}x${i}`;
const finishReason = (reply: FakeReply, calls: unknown[]) =>
  calls.length ? "tool_calls" : reply.cutShort ? "length" : "stop";
const usageBody = (u: { input: number; output: number }) => ({
  prompt_tokens: u.input,
  completion_tokens: u.output,
  total_tokens: u.input + u.output,
});

export const openaiProtocol: Protocol = {
  path: "/chat/completions",
  errorBody: (status, message) => {
    const [type, code] = OPENAI_ERRORS[status] ?? ["server_error", null];
    return { error: { message, type, param: null, code } };
  },
  complete(reply, body) {
    const calls = toolCallsFor(reply, body);
    const tokens = tokensOf(reply, calls);
    const usage = reply.usage === undefined ? { input: 42, output: tokens.length } : reply.usage;
    const toolCalls = calls.map((c, i) => ({
      id: callId(body, i),
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.input) },
    }));
    return {
      id: "chatcmpl-fake0001",
      object: "chat.completion",
      created: 1_763_900_000,
      model: body?.model ?? "unknown",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: tokens.length || !calls.length ? tokens.join("") : null,
            refusal: null,
            ...(calls.length ? { tool_calls: toolCalls } : {}),
            annotations: [],
          },
          logprobs: null,
          finish_reason: finishReason(reply, calls),
        },
      ],
      ...(usage ? { usage: usageBody(usage) } : {}),
      system_fingerprint: "fp_fake",
    };
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
    const calls = toolCallsFor(reply, body);
    const tokens = tokensOf(reply, calls);
    // A reply that only calls tools opens with its first call in the role chunk, content null.
    const opening = (i: number) => ({
      index: i,
      id: callId(body, i),
      type: "function",
      function: { name: calls[i]!.name, arguments: "" },
    });
    if (tokens.length || !calls.length) w.event(chunk({ role: "assistant", content: "", refusal: null }));
    else w.event(chunk({ role: "assistant", content: null, tool_calls: [opening(0)], refusal: null }));
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
    for (const [i, call] of calls.entries()) {
      if (i > 0 || tokens.length) w.event(chunk({ tool_calls: [opening(i)] }));
      for (const piece of jsonPieces(call.input))
        w.event(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    }
    w.event(chunk({}, finishReason(reply, calls)));
    const usage = reply.usage === undefined ? { input: 42, output: tokens.length } : reply.usage;
    if (body?.stream_options?.include_usage && usage) w.event({ ...base, choices: [], usage: usageBody(usage) });
    w.event("[DONE]");
  },
};

export const startFakeOpenAI = (fallback?: FakeReply): FakeProvider => startFake(openaiProtocol, fallback);

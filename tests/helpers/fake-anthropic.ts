/**
 * A loopback Anthropic Messages server (POST …/messages). Streamed (`stream: true`): named events
 * as api.anthropic.com sends them — message_start (input usage), content_block_start, ping,
 * content_block_delta (text_delta)…, content_block_stop, message_delta (stop_reason, output
 * usage), message_stop. A tool call is its own `tool_use` block (id, name, `input: {}`) whose
 * input arrives as `input_json_delta` pieces, and the message stops with `stop_reason: "tool_use"`.
 * Not streamed: one `message` body. Errors: `{"type":"error","error":{type, message}}`, as a body
 * or as an in-stream `event: error`.
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

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const toolId = (body: { messages?: unknown[] } | null, i: number) => `toolu_fake${body?.messages?.length ?? 0}x${i}`;
const stopReason = (reply: FakeReply, calls: unknown[]) =>
  calls.length ? "tool_use" : reply.cutShort ? "max_tokens" : "end_turn";
const inputUsage = (input: number) => ({
  input_tokens: input,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

export const anthropicProtocol: Protocol = {
  path: "/messages",
  errorBody: (status, message) => ({
    type: "error",
    error: { type: ANTHROPIC_ERRORS[status] ?? "api_error", message },
    request_id: "req_fake0001",
  }),
  complete(reply, body) {
    const calls = toolCallsFor(reply, body);
    const tokens = tokensOf(reply, calls);
    const usage = reply.usage === undefined ? { input: 42, output: tokens.length } : reply.usage;
    return {
      id: "msg_fake0001",
      type: "message",
      role: "assistant",
      model: body?.model ?? "unknown",
      content: [
        ...(tokens.length ? [{ type: "text", text: tokens.join("") }] : []),
        ...calls.map((c, i) => ({ type: "tool_use", id: toolId(body, i), name: c.name, input: c.input })),
      ],
      stop_reason: stopReason(reply, calls),
      stop_sequence: null,
      usage: { ...inputUsage(usage?.input ?? 0), output_tokens: usage?.output ?? 0 },
    };
  },
  async stream(reply: FakeReply, body: any, w) {
    const calls = toolCallsFor(reply, body);
    const tokens = tokensOf(reply, calls);
    const usage = reply.usage === undefined ? { input: 42, output: tokens.length } : reply.usage;
    w.event(
      {
        type: "message_start",
        message: {
          id: "msg_fake0001",
          type: "message",
          role: "assistant",
          content: [],
          model: body?.model ?? "unknown",
          stop_reason: null,
          stop_sequence: null,
          usage: { ...inputUsage(usage?.input ?? 0), output_tokens: 1 },
        },
      },
      "message_start",
    );
    const text = tokens.length > 0 || calls.length === 0;
    const first = text
      ? { type: "text", text: "" }
      : { type: "tool_use", id: toolId(body, 0), name: calls[0]!.name, input: {} };
    w.event({ type: "content_block_start", index: 0, content_block: first }, "content_block_start");
    w.event({ type: "ping" }, "ping");
    for (const [i, text] of tokens.entries()) {
      if (reply.errorAfter === i) {
        w.event({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error");
        return;
      }
      if (reply.disconnectAfter === i) return w.cut();
      if (reply.truncateAfter === i) return;
      await w.pause(i === 0 ? reply.firstTokenDelayMs : reply.tokenDelayMs);
      w.event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta");
    }
    if (reply.disconnectAfter === tokens.length) return w.cut();
    if (reply.truncateAfter === tokens.length) return;
    for (const [i, call] of calls.entries()) {
      const index = text ? i + 1 : i;
      if (index > 0) {
        w.event({ type: "content_block_stop", index: index - 1 }, "content_block_stop");
        const block = { type: "tool_use", id: toolId(body, i), name: call.name, input: {} };
        w.event({ type: "content_block_start", index, content_block: block }, "content_block_start");
      }
      for (const partial_json of ["", ...jsonPieces(call.input)])
        w.event(
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
          "content_block_delta",
        );
    }
    const last = text ? calls.length : calls.length - 1;
    w.event({ type: "content_block_stop", index: last }, "content_block_stop");
    w.event(
      {
        type: "message_delta",
        delta: { stop_reason: stopReason(reply, calls), stop_sequence: null },
        usage: { output_tokens: usage?.output ?? 0 },
      },
      "message_delta",
    );
    w.event({ type: "message_stop" }, "message_stop");
  },
};

export const startFakeAnthropic = (fallback?: FakeReply): FakeProvider => startFake(anthropicProtocol, fallback);

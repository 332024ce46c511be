/**
 * A loopback Anthropic Messages server (POST …/messages, stream: true) sending named events as
 * api.anthropic.com does: message_start (input usage), content_block_start, ping,
 * content_block_delta (text_delta)…, content_block_stop, message_delta (stop_reason, output
 * usage), message_stop. Errors: `{"type":"error","error":{type, message}}`, as a body or as an
 * in-stream `event: error`.
 */
import { type FakeProvider, type FakeReply, type Protocol, startFake } from "./fake-provider.ts";

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export const anthropicProtocol: Protocol = {
  path: "/messages",
  errorBody: (status, message) => ({
    type: "error",
    error: { type: ANTHROPIC_ERRORS[status] ?? "api_error", message },
    request_id: "req_fake0001",
  }),
  async stream(reply: FakeReply, body: any, w) {
    const tokens = reply.tokens ?? ["Hello", " from", " the", " fake", "."];
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
          usage: {
            input_tokens: usage?.input ?? 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: 1,
          },
        },
      },
      "message_start",
    );
    w.event(
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      "content_block_start",
    );
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
    w.event({ type: "content_block_stop", index: 0 }, "content_block_stop");
    w.event(
      {
        type: "message_delta",
        delta: { stop_reason: reply.cutShort ? "max_tokens" : "end_turn", stop_sequence: null },
        usage: { output_tokens: usage?.output ?? 0 },
      },
      "message_delta",
    );
    w.event({ type: "message_stop" }, "message_stop");
  },
};

export const startFakeAnthropic = (fallback?: FakeReply): FakeProvider => startFake(anthropicProtocol, fallback);

/**
 * The loopback providers are only worth testing against if they speak the protocols as the
 * providers do: the official SDKs (openai, @anthropic-ai/sdk) parse their streams here —
 * text, usage, the in-stream error event and HTTP errors — and their non-streamed replies and
 * tool calls (the SDKs' stream helpers assemble the calls from the deltas).
 */

import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startFakeAnthropic } from "./helpers/fake-anthropic.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";

setDefaultTimeout(30_000);

const SEARCH = { name: "search", input: { query: "rate limits per key" } };
const openaiTool = {
  type: "function" as const,
  function: { name: "search", parameters: { type: "object", properties: { query: { type: "string" } } } },
};
const anthropicTool = {
  name: "search",
  input_schema: { type: "object" as const, properties: { query: { type: "string" } } },
};

const openaiFake = startFakeOpenAI();
const anthropicFake = startFakeAnthropic();
afterAll(async () => {
  await openaiFake.stop();
  await anthropicFake.stop();
});

describe("fake OpenAI-compatible server, read by the official openai SDK", () => {
  const client = new OpenAI({ baseURL: `${openaiFake.url}/v1`, apiKey: "sk-x", maxRetries: 0 });
  const ask = () =>
    client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });

  test("chunks, finish_reason, then the usage chunk and [DONE]", async () => {
    openaiFake.script.push({ tokens: ["Hello", " world"], usage: { input: 7, output: 2 } });
    let text = "";
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of await ask()) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
      expect(chunk.model).toBe("gpt-test");
    }
    expect(text).toBe("Hello world");
    expect(finish).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
  });

  test("an in-stream error event is an APIError", async () => {
    openaiFake.script.push({ tokens: ["a", "b"], errorAfter: 1 });
    const run = async () => {
      for await (const _ of await ask());
    };
    await expect(run()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  test("HTTP errors carry status and the error body", async () => {
    openaiFake.script.push({ status: 429, headers: { "retry-after": "3" }, errorMessage: "slow down" });
    const error = await ask().then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.headers.get("retry-after")).toBe("3");
    expect(error.error).toMatchObject({ message: "slow down", type: "rate_limit_exceeded" });
  });

  test("not streamed: one chat.completion with the text and usage", async () => {
    openaiFake.script.push({ tokens: ["rate", " limits"], usage: { input: 30, output: 2 } });
    const done = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(done.object).toBe("chat.completion");
    expect(done.choices[0]!.message.content).toBe("rate limits");
    expect(done.choices[0]!.finish_reason).toBe("stop");
    expect(done.usage).toEqual({ prompt_tokens: 30, completion_tokens: 2, total_tokens: 32 });
  });

  test("tool calls: tool_calls deltas assembled by the SDK, finish_reason tool_calls; not streamed alike", async () => {
    openaiFake.script.push({ toolCalls: [SEARCH, { name: "search", input: { query: "keys" } }] });
    const stream = client.chat.completions.stream({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
      tools: [openaiTool],
      stream_options: { include_usage: true },
    });
    const done = await stream.finalChatCompletion();
    const choice = done.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const calls = choice.message.tool_calls!.map((c) => (c.type === "function" ? c.function : null));
    expect(calls.map((f) => [f?.name, JSON.parse(f!.arguments)])).toEqual([
      ["search", SEARCH.input],
      ["search", { query: "keys" }],
    ]);
    expect(new Set(choice.message.tool_calls!.map((c) => c.id)).size).toBe(2);

    openaiFake.script.push({ tokens: ["Looking."], toolCalls: [SEARCH] });
    const plain = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
      tools: [openaiTool],
    });
    expect(plain.choices[0]!.message).toMatchObject({ content: "Looking.", tool_calls: [{ type: "function" }] });
    expect(plain.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("no tool calls without tools, nor with tool_choice none: the text instead", async () => {
    openaiFake.script.push({ tokens: ["Plain."], toolCalls: [SEARCH] }, { tokens: ["Plain."], toolCalls: [SEARCH] });
    const none = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
      tools: [openaiTool],
      tool_choice: "none",
    });
    expect(none.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "Plain." } });
    const without = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(without.choices[0]!.message.tool_calls).toBeUndefined();
  });
});

describe("fake Anthropic server, read by the official @anthropic-ai/sdk", () => {
  const client = new Anthropic({ baseURL: anthropicFake.url, apiKey: "sk-ant-x", maxRetries: 0 });
  const stream = () =>
    client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });

  test("message_start … message_stop: text, stop reason and usage", async () => {
    anthropicFake.script.push({ tokens: ["Hello", " world"], usage: { input: 11, output: 2 } });
    const s = stream();
    const events: string[] = [];
    for await (const e of s) events.push(e.type);
    const message = await s.finalMessage();
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "Hello world" })]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 2 });
  });

  test("event: error mid-stream is an APIError", async () => {
    anthropicFake.script.push({ tokens: ["a", "b"], errorAfter: 1 });
    await expect(stream().finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
  });

  test("HTTP 401 is an AuthenticationError with the error body", async () => {
    anthropicFake.script.push({ status: 401, errorMessage: "invalid x-api-key" });
    const error = await stream()
      .finalMessage()
      .then(
        () => null,
        (e) => e,
      );
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.error).toMatchObject({
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    });
  });

  test("not streamed: one message with the text, stop reason and usage", async () => {
    anthropicFake.script.push({ tokens: ["rate", " limits"], usage: { input: 30, output: 2 } });
    const message = await client.messages.create({
      model: "claude-test",
      max_tokens: 50,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "rate limits" })]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 2 });
  });

  test("tool_use blocks with input_json_delta, stop_reason tool_use; after text; not streamed alike", async () => {
    anthropicFake.script.push({
      tokens: ["Let me", " look."],
      toolCalls: [SEARCH, { name: "search", input: { query: "keys" } }],
    });
    const s = client.messages.stream({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
      tools: [anthropicTool],
    });
    const deltas: string[] = [];
    for await (const e of s) if (e.type === "content_block_delta") deltas.push(e.delta.type);
    const message = await s.finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(message.content[0]).toMatchObject({ text: "Let me look." });
    expect(message.content.slice(1)).toEqual([
      expect.objectContaining({ name: "search", input: SEARCH.input }),
      expect.objectContaining({ name: "search", input: { query: "keys" } }),
    ]);
    expect(deltas).toContain("input_json_delta");

    anthropicFake.script.push({ toolCalls: [SEARCH] });
    const only = await client.messages
      .stream({
        model: "claude-test",
        max_tokens: 100,
        messages: [{ role: "user", content: "hi" }],
        tools: [anthropicTool],
      })
      .finalMessage();
    expect(only.content).toEqual([expect.objectContaining({ type: "tool_use", name: "search", input: SEARCH.input })]);

    anthropicFake.script.push({ toolCalls: [SEARCH] });
    const plain = await client.messages.create({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
      tools: [anthropicTool],
    });
    expect(plain).toMatchObject({ stop_reason: "tool_use", content: [{ type: "tool_use", input: SEARCH.input }] });
  });

  test("tool_choice none: the text instead of tool_use", async () => {
    anthropicFake.script.push({ tokens: ["Plain."], toolCalls: [SEARCH] });
    const message = await client.messages.create({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
      tools: [anthropicTool],
      tool_choice: { type: "none" },
    });
    expect(message).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "Plain." }] });
  });
});

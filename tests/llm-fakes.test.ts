/**
 * The loopback providers are only worth testing against if they speak the protocols as the
 * providers do: the official SDKs (openai, @anthropic-ai/sdk) parse their streams here —
 * text, usage, the in-stream error event and HTTP errors.
 */

import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startFakeAnthropic } from "./helpers/fake-anthropic.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";

setDefaultTimeout(30_000);

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
});

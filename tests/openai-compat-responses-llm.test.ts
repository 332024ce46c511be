/**
 * POST /v1/responses with a model backend (the loopback OpenAI-compatible provider): usage and
 * instructions flow through, an output cap is `incomplete`, a failure before the first token is
 * an error answer and one after it `response.failed`, and streamed links keep the text streaming
 * past each marker, its annotation right after it.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import OpenAI from "openai";
import { agentFromEnv } from "../src/agent/llm/index.ts";
import { loadEnv } from "../src/config/env.ts";
import { createLogger } from "../src/config/logger.ts";
import { harness, listen } from "./helpers/app.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import type { FakeProvider } from "./helpers/fake-provider.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);

const fakes: FakeProvider[] = [];
afterAll(async () => void (await Promise.all(fakes.map((f) => f.stop()))));
const QUESTION = "How do I validate a request body?";

async function setup() {
  const fake = startFakeOpenAI({ tokens: ["Hello", " there."], usage: { input: 42, output: 2 } });
  fakes.push(fake);
  const store = await testStore();
  const env = loadEnv({
    LLM_PROVIDER: "openai-compatible",
    LLM_MODEL: "test-model-7b",
    LLM_BASE_URL: `${fake.url}/v1`,
    LLM_API_KEY: "sk-test-0123456789",
    LLM_MAX_RETRIES: "0",
  });
  const agent = agentFromEnv(env, store.db, createLogger("silent"))!;
  const h = await harness({ store, agent });
  const { url } = listen(h.app);
  return { fake, openai: new OpenAI({ apiKey: await h.key(), baseURL: `${url}/v1`, maxRetries: 0 }) };
}

async function events(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
  const out: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("responses with a model backend", () => {
  test("usage and instructions reach the answer and the model; an output cap is incomplete", async () => {
    const s = await setup();
    const r = await s.openai.responses.create({ model: "default", input: QUESTION, instructions: "Answer in French." });
    expect(r.output_text).toBe("Hello there.");
    expect(r.usage).toMatchObject({ input_tokens: 42, output_tokens: 2, total_tokens: 44 });
    expect(JSON.stringify(s.fake.received.at(-1)!.body)).toContain("Answer in French.");

    s.fake.script.push({ tokens: ["A", " b", " c", " d"] });
    const cut = await events(
      await s.openai.responses.create({ model: "default", input: QUESTION, max_output_tokens: 2, stream: true }),
    );
    const last = cut.at(-1) as OpenAI.Responses.ResponseIncompleteEvent;
    expect(last.type).toBe("response.incomplete");
    expect(last.response.status).toBe("incomplete");
    expect(last.response.incomplete_details).toEqual({ reason: "max_output_tokens" });
  });

  test("a failure before the first token is an error answer; after it, response.failed with the text and annotations so far", async () => {
    const s = await setup();
    s.fake.script.push({ status: 500 });
    const early = await s.openai.responses.create({ model: "default", input: QUESTION, stream: true }).catch((x) => x);
    expect(early).toBeInstanceOf(OpenAI.APIError);
    expect(early.status).toBe(502);

    s.fake.script.push({ tokens: ["One [1]", " two", " three"], errorAfter: 1 });
    const res = await s.openai.responses.create({ model: "default", input: QUESTION, stream: true });
    const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
    await (async () => {
      for await (const e of res) seen.push(e);
    })().catch(() => undefined);
    const failed = seen.at(-1) as OpenAI.Responses.ResponseFailedEvent;
    expect(failed.type).toBe("response.failed");
    expect(failed.response.status).toBe("failed");
    expect(failed.response.error).toMatchObject({ code: "upstream_error" });
    const deltas = seen
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => (e as { delta: string }).delta);
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toMatch(/^One \[1\]\(https?:\/\/[^)\s]+\)$/);
    const added = seen.flatMap((e) => (e.type === "response.output_text.annotation.added" ? [e.annotation] : []));
    expect(added).toHaveLength(1);
    const part = failed.response.output[0]!.type === "message" ? failed.response.output[0]!.content[0] : undefined;
    expect(part).toMatchObject({ type: "output_text", text: deltas[0], annotations: added });
  });

  test("streamed links: text streams past the marker, linked as it comes, its annotation right after it", async () => {
    const s = await setup();
    s.fake.script.push({ tokens: ["Alpha", " beta", " [1] gamma", " delta."] });
    const seen = await events(await s.openai.responses.create({ model: "default", input: QUESTION, stream: true }));
    const deltas = seen.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    expect(deltas).toHaveLength(4);
    expect(deltas[0]).toBe("Alpha");
    expect(deltas[2]).toMatch(/^ \[1\]\(https?:\/\/[^)\s]+\) gamma$/);
    expect(deltas[3]).toBe(" delta.");
    const done = seen.find((e) => e.type === "response.output_text.done") as OpenAI.Responses.ResponseTextDoneEvent;
    expect(deltas.join("")).toBe(done.text);
    // The annotation follows the delta that sent its marker, before the next one, at its exact place.
    const types = seen.map((e) => e.type);
    const added = types.indexOf("response.output_text.annotation.added");
    expect(types.slice(added - 1, added + 2)).toEqual([
      "response.output_text.delta",
      "response.output_text.annotation.added",
      "response.output_text.delta",
    ]);
    const { annotation } = seen[added] as OpenAI.Responses.ResponseOutputTextAnnotationAddedEvent;
    const a = annotation as OpenAI.Responses.ResponseOutputText.URLCitation;
    expect(done.text.slice(a.start_index, a.end_index)).toBe(`[1](${a.url})`);
    const part = seen.find(
      (e) => e.type === "response.content_part.done",
    ) as OpenAI.Responses.ResponseContentPartDoneEvent;
    expect((part.part as OpenAI.Responses.ResponseOutputText).annotations).toEqual([a]);
  });
});

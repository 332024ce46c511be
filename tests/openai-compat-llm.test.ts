/**
 * The OpenAI-compatible door and MCP with a model backend: LLM_PROVIDER pointed at the loopback
 * providers (tests/helpers/fake-*.ts), the agent built from that environment as the server
 * builds it. Tokens, usage, settings and citations flow through; citations always point at a
 * real source, also when the model cites [0], [7] of 3, or splits `[2` across chunks.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import { agentFromEnv } from "../src/agent/llm/index.ts";
import { loadEnv } from "../src/config/env.ts";
import { createLogger } from "../src/config/logger.ts";
import { expectStatus, harness, listen } from "./helpers/app.ts";
import { startFakeAnthropic } from "./helpers/fake-anthropic.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import type { FakeProvider, Received } from "./helpers/fake-provider.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(60_000);

const providers = [
  { name: "openai-compatible" as const, start: startFakeOpenAI },
  { name: "anthropic" as const, start: startFakeAnthropic },
];
const fakes: FakeProvider[] = [];
afterAll(async () => void (await Promise.all(fakes.map((f) => f.stop()))));

/** The model cites [0] and [7] (no such passages) and splits `[2` `]` across chunks. */
const CITING = ["Alpha [0] beta", " [7] gamma [", "2", "] delta [1]."];
const QUESTION = "How do I validate a request body?";

/** The system prompt the provider got, whatever the protocol. */
function systemOf(r: Received): string {
  const text = (c: unknown): string =>
    typeof c === "string" ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? "").join("") : "";
  return r.body.system !== undefined ? text(r.body.system) : text(r.body.messages[0].content);
}

for (const p of providers) {
  describe(`with LLM_PROVIDER=${p.name} (loopback)`, () => {
    async function setup() {
      const fake = p.start({ tokens: ["Hello", " there."], usage: { input: 42, output: 2 } });
      fakes.push(fake);
      const store = await testStore();
      const env = loadEnv({
        LLM_PROVIDER: p.name,
        LLM_MODEL: "test-model-7b",
        LLM_BASE_URL: `${fake.url}/v1`,
        LLM_API_KEY: "sk-test-0123456789",
        LLM_MAX_RETRIES: "0",
      });
      const agent = agentFromEnv(env, store.db, createLogger("silent"))!;
      const h = await harness({ store, agent });
      const key = await h.key();
      const { url } = listen(h.app);
      const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
      return { fake, h, key, url, openai };
    }

    test("citations: [0] and [7] of the passages dropped, a split [2 held, renumbered; sources = cited documents in order", async () => {
      const s = await setup();
      s.fake.script.push({ tokens: CITING }, { tokens: CITING }, { tokens: CITING });
      const stream = await s.openai.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: QUESTION }],
        stream: true,
        // @ts-expect-error Parley's own option: the plain markers, as stored
        parley_citations: "markers",
      });
      const pieces: string[] = [];
      let annotations: OpenAI.ChatCompletionMessage.Annotation[] = [];
      for await (const c of stream) {
        const d = c.choices[0]?.delta as { content?: string; annotations?: typeof annotations } | undefined;
        if (d?.content) pieces.push(d.content);
        if (d?.annotations) annotations = d.annotations;
      }
      const urls = [...systemOf(s.fake.received[0]!).matchAll(/URL: (\S+)/g)].map((m) => m[1]!);
      expect(urls.length).toBeGreaterThanOrEqual(2);
      expect(urls.length).toBeLessThan(7);
      const sources = [...new Set([urls[1]!, urls[0]!])];
      const expected = `Alpha  beta  gamma [1] delta [${sources.indexOf(urls[0]!) + 1}].`;
      expect(pieces.join("")).toBe(expected);
      // No piece ever showed a marker half-way, nor an out-of-range one.
      for (const piece of pieces) expect(piece).not.toMatch(/\[\d*$|\[0\]|\[7\]/);
      expect(annotations.map((a) => a.url_citation.url)).toEqual([sources[0]!, sources.at(-1)!]);
      for (const a of annotations)
        expect(expected.slice(a.url_citation.start_index, a.url_citation.end_index)).toMatch(/^\[\d\]$/);

      // The same through POST /v1/chat (JSON): content, sources, and what is stored.
      const chat = await s.h.call("POST", "/v1/chat", { key: s.key, json: { message: QUESTION } });
      expectStatus(chat, 200);
      expect(chat.json.content).toBe(expected);
      expect(chat.json.sources).toEqual(sources);
      const conv = await s.h.call("GET", `/v1/conversations/${chat.json.conversation_id}`, { key: s.key });
      expect(conv.json.messages[1]).toMatchObject({ content: expected, sources });

      // And through the non-streamed completion.
      const done = await s.openai.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: QUESTION }],
      });
      // And through the non-streamed completion, with its default links.
      const linked = expected.replace(/\[(\d)\]/g, (m, k) => `${m}(${sources[Number(k) - 1]})`);
      expect(done.choices[0]!.message.content).toBe(linked);
      expect(done.choices[0]!.message.annotations!.map((a) => a.url_citation.url)).toEqual(
        annotations.map((a) => a.url_citation.url),
      );
      for (const a of done.choices[0]!.message.annotations!)
        expect(linked.slice(a.url_citation.start_index, a.url_citation.end_index)).toBe(
          `[${sources.indexOf(a.url_citation.url) + 1}](${a.url_citation.url})`,
        );

      // Streamed with links: each marker goes out linked with the token that brings it (its source came just before).
      s.fake.script.push({ tokens: CITING });
      const linkedStream = await s.openai.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: QUESTION }],
        stream: true,
      });
      const linkedPieces: string[] = [];
      for await (const c of linkedStream)
        if (c.choices[0]?.delta.content) linkedPieces.push(c.choices[0].delta.content);
      expect(linkedPieces.join("")).toBe(linked);
      expect(linkedPieces.at(-1)).toBe(linked.slice(linked.indexOf("[1]")));
      expect(linkedPieces.join("").startsWith(linkedPieces[0]!)).toBe(true);
    });

    test("tokens and usage flow through; system, temperature, top_p, max_tokens and stop reach the model", async () => {
      const s = await setup();
      const stream = await s.openai.chat.completions.create({
        model: "default",
        messages: [
          { role: "developer", content: "Answer like a pirate." },
          { role: "user", content: QUESTION },
        ],
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0.3,
        top_p: 0.9,
        max_completion_tokens: 50,
        stop: ["END"],
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello there.");
      expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 42, completion_tokens: 2, total_tokens: 44 });
      const got = s.fake.received[0]!.body;
      expect(systemOf(s.fake.received[0]!)).toContain("Answer like a pirate.");
      expect(got.temperature).toBe(0.3);
      expect(got.top_p).toBe(0.9);
      expect(got.max_tokens).toBe(50);
      expect(got.stop ?? got.stop_sequences).toEqual(["END"]);

      const json = await s.openai.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: "hi" }],
      });
      expect(json.usage).toEqual({ prompt_tokens: 42, completion_tokens: 2, total_tokens: 44 });
      expect(json.choices[0]!.message.content).toBe("Hello there.");
    });

    test("finish_reason length: the provider's own cap, and a max_tokens the provider ignored (cut here); stored as length", async () => {
      const s = await setup();
      s.fake.script.push({ tokens: ["One", " two"], cutShort: true }, { tokens: ["A", " b", " c", " d", " e"] });
      const { data, response } = await s.openai.chat.completions
        .create({ model: "default", messages: [{ role: "user", content: QUESTION }] })
        .withResponse();
      expect(data.choices[0]!.finish_reason).toBe("length");
      expect(data.choices[0]!.message.content).toBe("One two");
      const stream = await s.openai.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: QUESTION }],
        stream: true,
        max_completion_tokens: 2,
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("A b");
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("length");
      const conversation = response.headers.get("x-parley-conversation-id");
      const read = await fetch(`${s.url}/v1/conversations/${conversation}`, {
        headers: { authorization: `Bearer ${s.key}` },
      });
      const body = (await read.json()) as { messages: { role: string; status: string }[] };
      expect({ status: read.status, body }).toMatchObject({ status: 200 });
      expect(body.messages.at(-1)).toMatchObject({ role: "assistant", status: "length" });
    });

    test("a failure before the first token: OpenAI's error shape and status (JSON and stream)", async () => {
      const s = await setup();
      s.fake.script.push({ status: 500 }, { status: 500 });
      for (const stream of [false, true]) {
        const e = await s.openai.chat.completions
          .create({ model: "default", messages: [{ role: "user", content: QUESTION }], stream })
          .catch((x) => x);
        expect(e).toBeInstanceOf(OpenAI.InternalServerError);
        expect(e.status).toBe(502);
        expect(e.error).toMatchObject({ type: "api_error", code: "upstream_error", param: null });
      }
    });

    test("a model failure mid-stream: the tokens so far, then an error chunk the SDK raises, then the stream closes", async () => {
      const s = await setup();
      s.fake.script.push({ tokens: ["One", " two", " three"], errorAfter: 1 });
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "default", stream: true, messages: [{ role: "user", content: QUESTION }] }),
      });
      expect(res.status).toBe(200);
      const lines = (await res.text()).split("\n\n").filter(Boolean);
      expect(JSON.parse(lines.at(-1)!.slice(6))).toMatchObject({
        error: { type: "api_error", code: "upstream_error", param: null },
      });
      expect(lines.some((l) => l.includes('"content":"One"'))).toBe(true);
      expect(lines.join("\n")).not.toContain("[DONE]");

      s.fake.script.push({ tokens: ["One", " two", " three"], errorAfter: 1 });
      const stream = await s.openai.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: QUESTION }],
        stream: true,
      });
      let text = "";
      const e = await (async () => {
        for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
      })().catch((x) => x);
      expect(text).toBe("One");
      expect(e).toBeInstanceOf(OpenAI.APIError);
    });

    test("MCP ask runs the model agent: its answer with the cited sources", async () => {
      const s = await setup();
      s.fake.script.push({ tokens: CITING });
      const client = new Client({ name: "t", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${s.key}` } },
        }),
      );
      const r = await client.callTool({ name: "ask", arguments: { question: QUESTION } });
      const out = r.structuredContent as { answer: string; sources: string[] };
      expect(out.answer).toMatch(/^Alpha {2}beta {2}gamma \[1\] delta \[\d\]\.$/);
      expect(out.sources.length).toBeGreaterThanOrEqual(1);
      await client.close();
    });
  });
}

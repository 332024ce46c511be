/**
 * The model agent end to end: the real app, the AI SDK, and loopback servers speaking each
 * provider's protocol (tests/helpers/fake-*.ts). Each failure mode ends in exactly one terminal
 * event; what the provider received (passages, history, model, key header) is asserted.
 */

import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type LlmConfig, llmAgent } from "../src/agent/llm/index.ts";
import { createClient } from "../src/client/index.ts";
import type { Logger } from "../src/config/logger.ts";
import { expectError, expectStatus, harness } from "./helpers/app.ts";
import { startFakeAnthropic } from "./helpers/fake-anthropic.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import type { FakeProvider, FakeReply, Received } from "./helpers/fake-provider.ts";
import { captureLog } from "./helpers/log.ts";
import { readSse } from "./helpers/sse.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);

const KEY = "sk-test-secret-0123456789abcdef";

/** A logger that keeps its lines, to assert what reaches the log (and what never does). */
function memoryLogger(): Logger & { lines: string[] } {
  const { logger, lines } = captureLog();
  return Object.assign(logger, { lines });
}

const providers = [
  { name: "openai-compatible" as const, start: startFakeOpenAI },
  { name: "anthropic" as const, start: startFakeAnthropic },
];
const fakes: FakeProvider[] = [];
afterAll(async () => void (await Promise.all(fakes.map((f) => f.stop()))));

/** The system prompt and conversation as the provider got them, whatever the protocol. */
function seen(r: Received): { system: string; turns: { role: string; text: string }[] } {
  const text = (c: unknown): string =>
    typeof c === "string" ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? "").join("") : "";
  if (r.body.system !== undefined) {
    return {
      system: text(r.body.system),
      turns: r.body.messages.map((m: any) => ({ role: m.role, text: text(m.content) })),
    };
  }
  const [sys, ...rest] = r.body.messages;
  return { system: text(sys.content), turns: rest.map((m: any) => ({ role: m.role, text: text(m.content) })) };
}

async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await Bun.sleep(5);
}

for (const p of providers) {
  describe(`model agent: ${p.name}`, () => {
    async function setup(config: Partial<LlmConfig> = {}, fallback: FakeReply = {}) {
      const fake = p.start(fallback);
      fakes.push(fake);
      const store = await testStore();
      const logger = memoryLogger();
      const agent = llmAgent(
        store.db,
        {
          provider: p.name,
          model: "test-model-7b",
          baseUrl: `${fake.url}/v1`,
          apiKey: KEY,
          timeoutMs: 5_000,
          idleTimeoutMs: 5_000,
          // Retries wait a moment, not production's 200 ms, 400 ms…: what is tested is that they happen.
          retryBaseMs: 5,
          // One provider request per reply here; the query rewrite has its own tests (llm-rewrite.test.ts).
          rewrite: false,
          ...config,
        },
        { logger },
      );
      const h = await harness({ store, agent });
      const key = await h.key();
      const chat = (body: object) => h.call("POST", "/v1/chat", { key, json: body });
      const stream = async (body: object) => {
        const res = await h.app.handle(
          new Request("http://localhost/v1/chat", {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ ...body, stream: true }),
          }),
        );
        return (await readSse(res)).events;
      };
      const messages = async (conversationId: string) =>
        (await h.call("GET", `/v1/conversations/${conversationId}`, { key })).json.messages;
      const clean = () => {
        const all = [...logger.lines, ...fake.received.map((r) => JSON.stringify(r.body))].join("\n");
        return !logger.lines.join("\n").includes(KEY) && all.length > 0;
      };
      return { fake, h, key, chat, stream, messages, logger, clean };
    }

    test("grounded JSON reply: passages, model and key reach the provider; usage and cited sources come back", async () => {
      const s = await setup(
        {},
        { tokens: ["Rate", " limits", " are", " per", " key", " [1]."], usage: { input: 321, output: 6 } },
      );
      const r = await s.chat({ message: "How do rate limits work?" });
      expectStatus(r, 200);
      expect(r.json.content).toBe("Rate limits are per key [1].");
      expect(r.json.usage).toEqual({ input_tokens: 321, output_tokens: 6 });

      const got = s.fake.received[0]!;
      expect(got.body.model).toBe("test-model-7b");
      expect(got.body.stream).toBe(true);
      if (p.name === "anthropic") {
        expect(got.headers["x-api-key"]).toBe(KEY);
        expect(got.headers["anthropic-version"]).toBe("2023-06-01");
        expect(got.headers.authorization).toBeUndefined();
      } else {
        expect(got.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(got.body.stream_options).toEqual({ include_usage: true });
      }
      const { system, turns } = seen(got);
      expect(system).toContain("[1] ");
      expect(system).toMatch(/URL: https?:\/\/\S+/);
      expect(system).toMatch(/cite the passages/i);
      expect(turns).toEqual([{ role: "user", text: "How do rate limits work?" }]);

      // The first passage's URL is the one source: the answer cites [1] only.
      const firstUrl = /\[1\] [^\n]*\nURL: (\S+)/.exec(system)![1]!;
      const stored = await s.messages(r.json.conversation_id);
      expect(stored[1]).toMatchObject({
        role: "assistant",
        status: "completed",
        sources: [firstUrl],
        usage: { input_tokens: 321, output_tokens: 6 },
      });
      expect(stored[0]?.usage).toBeNull();
    });

    test("earlier turns go with the message; sources follow first citation; none cited → no sources", async () => {
      const s = await setup();
      s.fake.script.push({ tokens: ["First", " answer."] });
      const first = await s.chat({ message: "How do I stream replies?" });
      expectStatus(first, 200);
      expect(seen(s.fake.received[0]!).system).toContain("URL: ");
      expect((await s.messages(first.json.conversation_id))[1]?.sources).toEqual([]);

      s.fake.script.push({ tokens: ["See", " [2]", " and", " [1][2]."] });
      const second = await s.chat({
        message: "And how do rate limits work?",
        conversation_id: first.json.conversation_id,
      });
      expectStatus(second, 200);
      const { system, turns } = seen(s.fake.received[1]!);
      expect(turns).toEqual([
        { role: "user", text: "How do I stream replies?" },
        { role: "assistant", text: "First answer." },
        { role: "user", text: "And how do rate limits work?" },
      ]);
      const urls = [...system.matchAll(/URL: (\S+)/g)].map((m) => m[1]);
      const sources = [...new Set([urls[1]!, urls[0]!])];
      expect((await s.messages(first.json.conversation_id))[3]?.sources).toEqual(sources);
      // Renumbered to the sources: [k] is sources[k-1].
      expect(second.json.content).toBe(sources.length === 2 ? "See [1] and [2][1]." : "See [1] and [1].");
    });

    test("a question whose reply failed stays in the history; the failed reply does not", async () => {
      const s = await setup({ maxRetries: 0 });
      s.fake.script.push({ tokens: ["Half", " an", " answer"], errorAfter: 1 }, { tokens: ["Now", " complete."] });
      const first = await s.chat({ message: "How do I stream replies?" });
      expectError(first, 502, "upstream_error");
      const [conv] = (await s.h.call("GET", "/v1/conversations", { key: s.key })).json.data;
      const second = await s.chat({ message: "Please try again.", conversation_id: conv!.id });
      expectStatus(second, 200);
      const texts = seen(s.fake.received[1]!).turns;
      // Anthropic's provider merges the two user turns into one message; OpenAI-compatible sends both.
      expect(texts.map((t) => t.role).every((r) => r === "user")).toBe(true);
      expect(texts.map((t) => t.text).join("|")).toBe(
        p.name === "anthropic"
          ? "How do I stream replies?Please try again."
          : "How do I stream replies?|Please try again.",
      );
    });

    test("the history budget keeps the newest turns", async () => {
      const s = await setup({ historyBudgetChars: 60 });
      s.fake.script.push({ tokens: ["x".repeat(40)] }, { tokens: ["ok"] }, { tokens: ["ok"] });
      const a = await s.chat({ message: "How do I stream replies?" });
      await s.chat({ message: "What about keys?", conversation_id: a.json.conversation_id });
      await s.chat({ message: "And conversations?", conversation_id: a.json.conversation_id });
      expect(seen(s.fake.received[2]!).turns).toEqual([
        { role: "user", text: "What about keys?" },
        { role: "assistant", text: "ok" },
        { role: "user", text: "And conversations?" },
      ]);
    });

    test("nothing relevant: the model is told so, and sources are empty", async () => {
      const s = await setup({}, { tokens: ["I", " don't", " know."] });
      const r = await s.chat({ message: "zyxwv qwplk frobnicate?" });
      expectStatus(r, 200);
      expect(seen(s.fake.received[0]!).system).toContain("No passage in the knowledge base matches");
      expect((await s.messages(r.json.conversation_id))[1]?.sources).toEqual([]);
    });

    test("stream: the model's tokens as they come, the sources before the token citing them, end with usage", async () => {
      const s = await setup(
        {},
        { tokens: ["Keys", " are", " Bearer", " tokens", " [1]."], usage: { input: 100, output: 5 } },
      );
      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual([
        "start",
        "token",
        "token",
        "token",
        "token",
        "sources",
        "token",
        "end",
      ]);
      expect(
        events
          .filter((e) => e.type === "token")
          .map((e) => e.content)
          .join(""),
      ).toBe("Keys are Bearer tokens [1].");
      expect(events.at(-1)).toMatchObject({ type: "end", usage: { input_tokens: 100, output_tokens: 5 } });
      expect(events.find((e) => e.type === "sources").sources).toHaveLength(1);
    });

    test("the typed client reads usage from the reply, the end event and the history", async () => {
      const s = await setup({}, { usage: { input: 9, output: 5 } });
      const client = createClient({
        baseUrl: "http://localhost",
        apiKey: s.key,
        fetch: (url, init) => s.h.app.handle(new Request(url, init)),
      });
      const reply = await client.chat({ message: "How do API keys work?" });
      expect(reply.usage).toEqual({ inputTokens: 9, outputTokens: 5 });
      let end: unknown;
      for await (const e of client.chatStream({ message: "And keys?", conversationId: reply.conversationId }))
        if (e.type === "end") end = e.usage;
      expect(end).toEqual({ inputTokens: 9, outputTokens: 5 });
      const conv = await client.conversations.get(reply.conversationId);
      expect(conv.messages.map((m) => m.usage)).toEqual([
        null,
        { inputTokens: 9, outputTokens: 5 },
        null,
        { inputTokens: 9, outputTokens: 5 },
      ]);
    });

    test("no usage reported: usage is null", async () => {
      const s = await setup({}, { usage: null });
      const r = await s.chat({ message: "How do API keys work?" });
      expectStatus(r, 200);
      if (p.name === "openai-compatible") expect(r.json.usage).toBeNull();
      else expect(r.json.usage).toEqual({ input_tokens: 0, output_tokens: 0 }); // Anthropic always reports counts
    });

    test("401: not retried, 502 without the provider's words, one clear log line without the key", async () => {
      const s = await setup({}, { status: 401, errorMessage: `Incorrect API key provided: ${KEY}.` });
      const r = await s.chat({ message: "How do API keys work?" });
      expectError(r, 502, "upstream_error");
      expect(r.text).not.toContain(KEY);
      expect(r.text).not.toContain("Incorrect API key");
      expect(s.fake.received).toHaveLength(1);
      const errors = s.logger.lines.filter((l) => l.includes('"level":"error"'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain("LLM_API_KEY");
      expect(s.logger.lines.join("\n")).not.toContain(KEY);
      expect(s.logger.lines.join("\n")).not.toContain("Incorrect API key");

      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual(["start", "error"]);
      expect(events[1].error.code).toBe("upstream_error");
    });

    test("429 with retry-after: retried after the wait, then the reply", async () => {
      const s = await setup();
      s.fake.script.push({ status: 429, headers: { "retry-after": "1" } });
      const r = await s.chat({ message: "How do API keys work?" });
      expectStatus(r, 200);
      expect(s.fake.received).toHaveLength(2);
      expect(s.fake.received[1]!.at - s.fake.received[0]!.at).toBeGreaterThanOrEqual(950);
    });

    test("429 retries exhausted: 502 after maxRetries + 1 attempts", async () => {
      const s = await setup({ maxRetries: 2 }, { status: 429, headers: { "retry-after": "0" } });
      const r = await s.chat({ message: "How do API keys work?" });
      expectError(r, 502, "upstream_error");
      expect(s.fake.received).toHaveLength(3);
    });

    test("a retry-after beyond the first-token deadline is not waited for", async () => {
      const s = await setup({ timeoutMs: 2_000 }, { status: 429, headers: { "retry-after": "30" } });
      const r = await s.chat({ message: "How do API keys work?" });
      expectError(r, 502, "upstream_error");
      expect(s.fake.received).toHaveLength(1);
    });

    test("5xx is retried, then the reply", async () => {
      const s = await setup();
      s.fake.script.push({ status: 503 }, { status: 500 });
      const r = await s.chat({ message: "How do API keys work?" });
      expectStatus(r, 200);
      expect(s.fake.received).toHaveLength(3);
    });

    test("a 400 quoting the user's message: the log has status, type, code and request id, never the provider's text", async () => {
      const secret = `my private words ${crypto.randomUUID()}`;
      const requestIdHeader = p.name === "anthropic" ? "request-id" : "x-request-id";
      const s = await setup(
        {},
        {
          status: 400,
          errorMessage: `Invalid content in messages[1]: "${secret}" is not allowed`,
          headers: { [requestIdHeader]: "req_fake_0123" },
        },
      );
      expectError(await s.chat({ message: secret }), 502, "upstream_error");
      const log = s.logger.lines.join("\n");
      expect(log).not.toContain(secret);
      expect(log).not.toContain("is not allowed");
      const line = s.logger.lines.find((l) => l.includes("model provider failed"));
      expect(line, log).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({
        status: 400,
        provider_error: "invalid_request_error",
        provider_request_id: "req_fake_0123",
      });
    });

    test("a provider that ignores max tokens: the reply is cut locally at maxOutputTokens, status `length`, upstream aborted", async () => {
      const tokens = Array.from({ length: 3_000 }, (_, i) => ` w${i}`);
      const s = await setup({ maxOutputTokens: 50 }, { tokens, tokenDelayMs: 1 });
      const events = await s.stream({ message: "Tell me everything." });
      const text = events
        .filter((e) => e.type === "token")
        .map((e) => e.content)
        .join("");
      expect(text).toBe(tokens.slice(0, 50).join(""));
      const end = events.at(-1)!;
      expect(end).toMatchObject({ type: "end", status: "length" });
      await waitFor(() => s.fake.received[0]!.aborted);
      const stored = (await s.messages(events[0].conversation_id))[1];
      expect(stored).toMatchObject({ status: "length", content: text });

      const json = await s.chat({ message: "Again, everything." });
      expectStatus(json, 200);
      expect(json.json).toMatchObject({ status: "length", content: tokens.slice(0, 50).join("") });
    });

    test("a single 2 MB token: stored cut at maxReplyBytes (between code points), status `length`", async () => {
      const huge = "é".repeat(1_000_000); // 2,000,000 UTF-8 bytes
      const s = await setup({ maxReplyBytes: 1_001 }, { tokens: ["Start ", huge, " never"] });
      const r = await s.chat({ message: "One huge token, please." });
      expectStatus(r, 200);
      expect(r.json.status).toBe("length");
      expect(r.json.content).toBe(`Start ${"é".repeat(497)}`); // 6 + 497 × 2 = 1,000 bytes ≤ 1,001
      const stored = (await s.messages(r.json.conversation_id))[1]!;
      expect(new TextEncoder().encode(stored.content).length).toBeLessThanOrEqual(1_001);
      expect(stored.status).toBe("length");
    });

    test("400 is not retried", async () => {
      const s = await setup({}, { status: 400 });
      expectError(await s.chat({ message: "How do API keys work?" }), 502, "upstream_error");
      expect(s.fake.received).toHaveLength(1);
    });

    test("unreachable provider (connection refused): retried, then 502", async () => {
      const s = await setup({ maxRetries: 1 });
      const closed = p.start();
      const port = closed.port;
      await closed.stop();
      const agent = llmAgent(
        (await testStore()).db,
        { provider: p.name, model: "m", baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1, retryBaseMs: 5 },
        { logger: s.logger },
      );
      const h = await harness({ store: await testStore(), agent });
      const key = await h.key();
      const r = await h.call("POST", "/v1/chat", { key, json: { message: "How do API keys work?" } });
      expectError(r, 502, "upstream_error");
      expect(s.logger.lines.filter((l) => l.includes("retrying"))).toHaveLength(1);
    });

    test("slow first token: 504 upstream_timeout (JSON) and error event (stream); the upstream request is aborted", async () => {
      const s = await setup({ timeoutMs: 300 }, { firstTokenDelayMs: 3_000 });
      const r = await s.chat({ message: "How do API keys work?" });
      expectError(r, 504, "upstream_timeout");
      await waitFor(() => s.fake.received[0]!.aborted);
      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual(["start", "error"]);
      expect(events[1].error.code).toBe("upstream_timeout");
      expect((await s.messages(events[0].conversation_id))[1]).toMatchObject({
        role: "assistant",
        status: "failed",
        content: "",
      });
    });

    test("idle timeout after tokens: error event, partial reply stored as failed", async () => {
      const s = await setup(
        { idleTimeoutMs: 300 },
        { tokens: ["Partial", " answer", " never", " ends"], tokenDelayMs: 3_000 },
      );
      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual(["start", "token", "error"]);
      expect(events[2].error.code).toBe("upstream_timeout");
      const stored = await s.messages(events[0].conversation_id);
      expect(stored[1]).toMatchObject({ status: "failed", content: "Partial", usage: null });
      await waitFor(() => s.fake.received[0]!.aborted);
    });

    test("error event mid-stream: error event after the tokens, partial stored as failed; 502 as JSON", async () => {
      const s = await setup({}, { tokens: ["One", " two", " three"], errorAfter: 2 });
      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual(["start", "token", "token", "error"]);
      expect(events[3].error.code).toBe("upstream_error");
      expect((await s.messages(events[0].conversation_id))[1]).toMatchObject({ status: "failed", content: "One two" });
      expectError(await s.chat({ message: "How do API keys work?" }), 502, "upstream_error");
      expect(s.fake.received).toHaveLength(2); // after tokens: never retried
    });

    test("abrupt disconnect after tokens: error event, partial stored as failed", async () => {
      const s = await setup({}, { tokens: ["One", " two", " three"], disconnectAfter: 2 });
      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual(["start", "token", "token", "error"]);
      expect(events.at(-1).error.code).toBe("upstream_error");
      expect(events.filter((e) => e.type === "error" || e.type === "end")).toHaveLength(1);
      const text = events
        .filter((e) => e.type === "token")
        .map((e) => e.content)
        .join("");
      expect((await s.messages(events[0].conversation_id))[1]).toMatchObject({ status: "failed", content: text });
    });

    test("a stream that ends without its final chunk is a failure, not a reply", async () => {
      const s = await setup({}, { tokens: ["One", " two", " three"], truncateAfter: 2 });
      const events = await s.stream({ message: "How do API keys work?" });
      expect(events.map((e) => e.type)).toEqual(["start", "token", "token", "error"]);
      expect(events[3].error.code).toBe("upstream_error");
      expect((await s.messages(events[0].conversation_id))[1]).toMatchObject({ status: "failed", content: "One two" });
    });

    test("cut off (shutdown): the upstream request is aborted and the partial reply stored", async () => {
      const s = await setup({}, { tokens: ["Started", " but", " slow"], tokenDelayMs: 10_000 });
      const res = s.h.app.handle(
        new Request("http://localhost/v1/chat", {
          method: "POST",
          headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
          body: JSON.stringify({ message: "How do API keys work?", stream: true }),
        }),
      );
      const reading = res.then((r) => readSse(r));
      await waitFor(() => s.fake.received.length === 1);
      // Wait for the first token to reach the run, then shut down with no grace.
      await waitFor(() => s.h.replies.live().some((run) => run.events.some((e) => e.event.type === "token")));
      await s.h.replies.drain(0);
      const events = (await reading).events;
      expect(events.map((e) => e.type)).toEqual(["start", "token", "error"]);
      expect(events[2].error.code).toBe("service_unavailable");
      await waitFor(() => s.fake.received[0]!.aborted);
      expect((await s.messages(events[0].conversation_id))[1]).toMatchObject({ status: "failed", content: "Started" });
    });

    test("the key never reaches the provider's request body, and never the log", async () => {
      const s = await setup({}, { status: 500, errorMessage: `internal failure for key ${KEY}` });
      await s.chat({ message: "How do API keys work?" });
      expect(s.clean()).toBe(true);
      expect(s.fake.received.every((r) => !JSON.stringify(r.body).includes(KEY))).toBe(true);
    });
  });
}

/**
 * The query rewrite (agent/llm/rewrite.ts) against loopback providers of both protocols: a
 * follow-up is condensed by one short non-streamed call and that query is what is searched; a
 * failed or slow rewrite falls back to the search as it was, and the reply still succeeds; its
 * tokens count in the reply's usage and against the key; it is traced as `agent.rewrite`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type LlmConfig, llmAgent } from "../src/agent/llm/index.ts";
import { findPassages } from "../src/agent/llm/passages.ts";
import type { ChatTurn } from "../src/agent/types.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { DEFAULT_KB_ID } from "../src/knowledge/index.ts";
import { usageOf } from "../src/usage/service.ts";
import { expectStatus, harness } from "./helpers/app.ts";
import { startFakeAnthropic } from "./helpers/fake-anthropic.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import type { FakeProvider, Received } from "./helpers/fake-provider.ts";
import { captureLog } from "./helpers/log.ts";
import { ask, messagesOf, recordingTrace, systemOf, urlsIn } from "./helpers/model-agent.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(20_000);
beforeAll(() => testStore().then(() => {}), 120_000);

const HISTORY: ChatTurn[] = [
  { role: "user", content: "How do I stream replies?" },
  { role: "assistant", content: "Send stream: true and read the events [1]." },
];
const FOLLOW_UP = "And in that framework, how do I read a piece of the path?";
const QUERY = "Wren routing path parameters";

const providers = [
  { name: "openai-compatible" as const, start: startFakeOpenAI },
  { name: "anthropic" as const, start: startFakeAnthropic },
];
const fakes: FakeProvider[] = [];
afterAll(async () => void (await Promise.all(fakes.map((f) => f.stop()))));

const urlsOf = async (query: string, history: ChatTurn[]) =>
  (await findPassages((await testStore()).db, query, history, DEFAULT_KB_ID)).map((p) => p.url);

for (const p of providers) {
  describe(`query rewrite: ${p.name}`, () => {
    async function setup(config: Partial<LlmConfig> = {}) {
      const fake = p.start();
      fakes.push(fake);
      const { logger, lines } = captureLog();
      const store = await testStore();
      const c = { provider: p.name, model: "m", baseUrl: `${fake.url}/v1`, apiKey: "sk-x", maxRetries: 0, ...config };
      return { fake, lines, store, agent: llmAgent(store.db, c, { logger }) };
    }

    test("a follow-up is condensed in one short call, and that query is what is searched; its tokens are the reply's", async () => {
      const s = await setup();
      s.fake.script.push(
        { tokens: [`"${QUERY}"\nextra words`], usage: { input: 50, output: 6 } },
        { tokens: ["Use", " :id [1]."], usage: { input: 400, output: 3 } },
      );
      const { trace, spans } = recordingTrace();
      const answer = await ask(s.agent, FOLLOW_UP, HISTORY, trace);

      expect(s.fake.received).toHaveLength(2);
      const [rewrite, reply] = s.fake.received as [Received, Received];
      expect(rewrite.body.stream).not.toBe(true);
      expect(rewrite.body.max_tokens).toBe(64);
      expect(rewrite.body.tools).toBeUndefined();
      expect(messagesOf(rewrite)).toContain(HISTORY[0]!.content);
      expect(messagesOf(rewrite)).toContain(FOLLOW_UP);
      expect(reply.body.stream).toBe(true);

      // The passages the model got are the rewritten query's, not those of the message with its history.
      const expected = await urlsOf(QUERY, []);
      expect(expected).toContain("https://wren.example/docs/routing");
      expect(await urlsOf(FOLLOW_UP, HISTORY)).not.toEqual(expected);
      expect(urlsIn(systemOf(reply))).toEqual(expected);
      // The reply still sees the conversation as it was.
      expect(messagesOf(reply)).toContain(FOLLOW_UP);

      expect(answer.usage).toEqual({ input_tokens: 450, output_tokens: 9 });
      expect(answer.text).toBe("Use :id [1].");
      expect(answer.sources).toEqual([expected[0]!]);
      const names = spans.map((sp) => sp.name);
      expect(names.indexOf("agent.rewrite")).toBeLessThan(names.indexOf("knowledge.search"));
      expect(spans.find((sp) => sp.name === "agent.rewrite")).toMatchObject({
        ended: true,
        attributes: {
          "parley.rewrite.outcome": "rewritten",
          "gen_ai.usage.input_tokens": 50,
          "gen_ai.usage.output_tokens": 6,
        },
      });
      expect(JSON.stringify(spans)).not.toContain(QUERY);
    });

    test("no rewrite on a first turn, nor when switched off", async () => {
      const s = await setup();
      await ask(s.agent, FOLLOW_UP);
      expect(s.fake.received).toHaveLength(1);
      const off = await setup({ rewrite: false });
      const { trace, spans } = recordingTrace();
      await ask(off.agent, FOLLOW_UP, HISTORY, trace);
      expect(off.fake.received).toHaveLength(1);
      expect(urlsIn(systemOf(off.fake.received[0]!))).toEqual(await urlsOf(FOLLOW_UP, HISTORY));
      expect(spans.map((sp) => sp.name)).not.toContain("agent.rewrite");
    });

    test("a failed rewrite (HTTP 500) falls back to the message with its history; logged without text", async () => {
      const s = await setup();
      s.fake.script.push(
        { status: 500, errorMessage: `cannot rewrite "${FOLLOW_UP}"` },
        { usage: { input: 10, output: 5 } },
      );
      const { trace, spans } = recordingTrace();
      const answer = await ask(s.agent, FOLLOW_UP, HISTORY, trace);
      expect(answer.text).toBe("Hello from the fake.");
      expect(answer.usage).toEqual({ input_tokens: 10, output_tokens: 5 });
      expect(s.fake.received).toHaveLength(2); // the rewrite is not retried
      expect(urlsIn(systemOf(s.fake.received[1]!))).toEqual(await urlsOf(FOLLOW_UP, HISTORY));
      expect(spans.find((sp) => sp.name === "agent.rewrite")?.attributes["parley.rewrite.outcome"]).toBe("failed");
      const line = s.lines.find((l) => l.includes("query rewrite failed"));
      expect(JSON.parse(line!)).toMatchObject({ level: "warn", outcome: "failed", status: 500 });
      expect(s.lines.join("\n")).not.toContain(FOLLOW_UP);
    });

    test("a slow rewrite is given up at its deadline; the reply goes on without waiting for it", async () => {
      const s = await setup({ rewriteTimeoutMs: 150 });
      s.fake.script.push({ tokens: [QUERY], firstTokenDelayMs: 3_000 }, {});
      const { trace, spans } = recordingTrace();
      const started = performance.now();
      const answer = await ask(s.agent, FOLLOW_UP, HISTORY, trace);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(answer.text).toBe("Hello from the fake.");
      expect(urlsIn(systemOf(s.fake.received[1]!))).toEqual(await urlsOf(FOLLOW_UP, HISTORY));
      expect(spans.find((sp) => sp.name === "agent.rewrite")?.attributes["parley.rewrite.outcome"]).toBe("timeout");
      expect(s.lines.some((l) => l.includes('"outcome":"timeout"'))).toBe(true);
    });

    test("an empty rewrite searches as before", async () => {
      const s = await setup();
      s.fake.script.push({ tokens: ["  \n \n"], usage: { input: 7, output: 1 } }, { usage: { input: 10, output: 5 } });
      const answer = await ask(s.agent, FOLLOW_UP, HISTORY);
      expect(urlsIn(systemOf(s.fake.received[1]!))).toEqual(await urlsOf(FOLLOW_UP, HISTORY));
      expect(answer.usage).toEqual({ input_tokens: 17, output_tokens: 6 });
    });

    test("over HTTP: the JSON reply, the stored message and the key's usage count the rewrite's tokens", async () => {
      const s = await setup();
      const h = await harness({ store: s.store, agent: s.agent });
      const { secret: key, id } = await createKey(h.store.db, { name: "rewrite", plan: "pro", tpd: 100_000 });
      s.fake.script.push({ usage: { input: 100, output: 5 } });
      const first = await h.call("POST", "/v1/chat", { key, json: { message: "How do I stream replies?" } });
      expectStatus(first, 200);
      s.fake.script.push({ tokens: [QUERY], usage: { input: 30, output: 4 } }, { usage: { input: 200, output: 5 } });
      const second = await h.call("POST", "/v1/chat", {
        key,
        json: { message: FOLLOW_UP, conversation_id: first.json.conversation_id },
      });
      expectStatus(second, 200);
      expect(second.json.usage).toEqual({ input_tokens: 230, output_tokens: 9 });
      const stored = await h.call("GET", `/v1/conversations/${first.json.conversation_id}`, { key });
      expect(stored.json.messages[3]?.usage).toEqual({ input_tokens: 230, output_tokens: 9 });
      const today = new Date().toISOString().slice(0, 10);
      const [usage] = await usageOf(h.store.db, [id], today, today);
      expect(usage!.days[0]).toMatchObject({ input_tokens: 330, output_tokens: 14 });
    });
  });
}

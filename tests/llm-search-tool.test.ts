/**
 * Agentic mode (agent/llm/search-tool.ts) against loopback providers of both protocols, which
 * send tool calls in their own wire form: the model searches with the `search` tool, every call's
 * passages join one numbered list so its [n] stay valid and become the reply's sources, the loop
 * stops at the configured number of calls, every step's tokens count, and each call is a span.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type LlmConfig, llmAgent, llmConfigFromEnv } from "../src/agent/llm/index.ts";
import { findPassages } from "../src/agent/llm/passages.ts";
import { loadEnv } from "../src/config/env.ts";
import { createLogger } from "../src/config/logger.ts";
import { DEFAULT_KB_ID } from "../src/knowledge/index.ts";
import { startFakeAnthropic } from "./helpers/fake-anthropic.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import type { FakeProvider, Received } from "./helpers/fake-provider.ts";
import { ask, messagesOf, recordingTrace, systemOf } from "./helpers/model-agent.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(20_000);
beforeAll(() => testStore().then(() => {}), 120_000);

const NOWHERE = "zyxwv qwplk frobnicate?";
const ROUTING = { name: "search", input: { query: "Wren routing path parameters" } };
const LIMITS = { name: "search", input: { query: "Parley plans and rate limits" } };

const providers = [
  { name: "openai-compatible" as const, start: startFakeOpenAI },
  { name: "anthropic" as const, start: startFakeAnthropic },
];
const fakes: FakeProvider[] = [];
afterAll(async () => void (await Promise.all(fakes.map((f) => f.stop()))));

const found = async (query: string) =>
  (await findPassages((await testStore()).db, query, [], DEFAULT_KB_ID)).map((p) => p.url);
/** Whether the request forbade tools (OpenAI "none", Anthropic {type: "none"}). */
const forbidsTools = (r: Received) => r.body.tool_choice === "none" || r.body.tool_choice?.type === "none";

for (const p of providers) {
  describe(`search tool: ${p.name}`, () => {
    async function setup(config: Partial<LlmConfig> = {}) {
      const fake = p.start();
      fakes.push(fake);
      const store = await testStore();
      const c = { provider: p.name, model: "m", baseUrl: `${fake.url}/v1`, agentic: true, maxRetries: 0, ...config };
      return { fake, agent: llmAgent(store.db, c, { logger: createLogger("silent") }) };
    }

    test("two searches: passages numbered on from the list, [n] mapped to sources, out-of-range dropped, every step counted", async () => {
      const s = await setup();
      const routing = await found(ROUTING.input.query);
      const limits = await found(LIMITS.input.query);
      expect(await found(NOWHERE)).toEqual([]);
      expect(routing.length).toBeGreaterThan(0);
      expect(limits.length).toBeGreaterThan(0);
      const second = routing.length + 1;
      s.fake.script.push(
        { toolCalls: [ROUTING], usage: { input: 10, output: 2 } },
        { tokens: ["One", " more."], toolCalls: [LIMITS], usage: { input: 20, output: 4 } },
        {
          tokens: ["Use", " :id", ` [1];`, ` limits`, ` [${second}]`, ` [${second + limits.length}].`],
          usage: { input: 30, output: 6 },
        },
      );
      const { trace, spans } = recordingTrace();
      const answer = await ask(s.agent, NOWHERE, [], trace);

      expect(s.fake.received).toHaveLength(3);
      const [first, , last] = s.fake.received as [Received, Received, Received];
      expect(first.body.tools).toHaveLength(1);
      expect(JSON.stringify(first.body.tools)).toContain('"search"');
      expect(systemOf(first)).toContain("`search` tool (at most 3 times)");
      // What each call found went back to the model numbered on from the list: 1… then `second`….
      const results = messagesOf(last);
      expect(results).toContain(`[1] `);
      expect(results).toContain(`[${second}] `);
      expect(results).toContain(`URL: ${limits[0]}`);
      expect(answer.text).toBe(`One more.\n\nUse :id [1]; limits [2] .`);
      expect(answer.sources).toEqual([routing[0]!, limits[0]!]);
      expect(answer.usage).toEqual({ input_tokens: 60, output_tokens: 12 });
      const calls = spans.filter((sp) => sp.name === "agent.search_tool");
      expect(calls.map((sp) => sp.attributes["parley.search.call"])).toEqual([1, 2]);
      expect(calls.every((sp) => sp.ended && !sp.failed)).toBe(true);
      expect(calls[0]!.attributes["parley.search.new"]).toBe(routing.length);
      expect(spans.filter((sp) => sp.name === "knowledge.search" && sp.parent === "agent.search_tool")).toHaveLength(2);
      expect(JSON.stringify(spans)).not.toContain(ROUTING.input.query);
    });

    test("a model that keeps searching is stopped at the limit: no tool after N calls, then it answers", async () => {
      const s = await setup({ maxSearchCalls: 2 });
      s.fake.fallback = { tokens: ["Done", " [1]."], toolCalls: [ROUTING], usage: { input: 5, output: 1 } };
      const { trace, spans } = recordingTrace();
      const answer = await ask(s.agent, NOWHERE, [], trace);
      expect(s.fake.received).toHaveLength(3);
      expect(s.fake.received.map(forbidsTools)).toEqual([false, false, true]);
      // The tool stays declared in the last request: its messages hold the earlier calls.
      expect(s.fake.received[2]!.body.tools).toHaveLength(1);
      expect(spans.filter((sp) => sp.name === "agent.search_tool")).toHaveLength(2);
      // The first step's text is followed by its calls; the answer comes after.
      expect(answer.text.endsWith("Done [1].")).toBe(true);
      expect(answer.sources).toEqual([(await found(ROUTING.input.query))[0]!]);
      expect(answer.usage).toEqual({ input_tokens: 15, output_tokens: 3 });
    });

    test("more calls in one step than allowed: the extra ones are refused without searching", async () => {
      const s = await setup({ maxSearchCalls: 2 });
      s.fake.script.push({ toolCalls: [ROUTING, LIMITS, { name: "search", input: { query: "keys" } }] });
      s.fake.fallback = { tokens: ["Ok."] };
      const { trace, spans } = recordingTrace();
      const answer = await ask(s.agent, NOWHERE, [], trace);
      expect(answer.text).toBe("Ok.");
      expect(s.fake.received).toHaveLength(2);
      expect(forbidsTools(s.fake.received[1]!)).toBe(true);
      expect(spans.filter((sp) => sp.name === "agent.search_tool")).toHaveLength(2);
      expect(messagesOf(s.fake.received[1]!)).toContain("The search limit for this reply is reached");
    });

    test("off by default: no tool is declared", async () => {
      const s = await setup({ agentic: undefined });
      await ask(s.agent, "How do rate limits work?");
      expect(s.fake.received[0]!.body.tools).toBeUndefined();
      expect(systemOf(s.fake.received[0]!)).not.toContain("`search` tool");
    });
  });
}

describe("settings from the environment", () => {
  const base = { LLM_PROVIDER: "anthropic", LLM_MODEL: "m" };
  test("defaults: rewrite on (3 s), agentic off (3 calls when on)", () => {
    expect(llmConfigFromEnv(loadEnv(base))).toMatchObject({
      rewrite: true,
      rewriteTimeoutMs: 3_000,
      agentic: false,
      maxSearchCalls: 3,
    });
  });
  test("LLM_REWRITE, LLM_REWRITE_TIMEOUT_MS, LLM_AGENTIC and LLM_TOOL_SEARCH_MAX", () => {
    const env = { LLM_REWRITE: "off", LLM_REWRITE_TIMEOUT_MS: "800", LLM_AGENTIC: "on", LLM_TOOL_SEARCH_MAX: "5" };
    expect(llmConfigFromEnv(loadEnv({ ...base, ...env }))).toMatchObject({
      rewrite: false,
      rewriteTimeoutMs: 800,
      agentic: true,
      maxSearchCalls: 5,
    });
    expect(() => loadEnv({ ...base, LLM_AGENTIC: "yes" })).toThrow(/LLM_AGENTIC/);
    expect(() => loadEnv({ ...base, LLM_TOOL_SEARCH_MAX: "0" })).toThrow(/LLM_TOOL_SEARCH_MAX/);
  });
});

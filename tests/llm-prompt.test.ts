/** The model agent's prompt pieces: citations → sources, the history budget, the environment's checks. */
import { describe, expect, test } from "bun:test";
import { citedSources, conversation, systemPrompt } from "../src/agent/llm/prompt.ts";
import { loadEnv } from "../src/config/env.ts";

const passages = [
  { url: "https://a.test/", title: "A", heading: "A", content: "alpha" },
  { url: "https://b.test/", title: "B", heading: "Setup", content: "beta" },
  { url: "https://a.test/", title: "A", heading: "More", content: "alpha two" },
];

describe("citedSources", () => {
  test("documents in order of first citation, deduplicated; [n, m] and [n][m] forms", () => {
    expect(citedSources("x [2] y [1][3] z [2, 1]", passages)).toEqual(["https://b.test/", "https://a.test/"]);
  });
  test("no citation (or only out-of-range ones): every document given", () => {
    expect(citedSources("no citations [9]", passages)).toEqual(["https://a.test/", "https://b.test/"]);
    expect(citedSources("anything", [])).toEqual([]);
  });
});

describe("prompt", () => {
  test("passages numbered with title, heading and URL", () => {
    const s = systemPrompt("BASE", passages);
    expect(s.startsWith("BASE\n\n")).toBe(true);
    expect(s).toContain("[2] B — Setup\nURL: https://b.test/\nbeta");
    expect(s).toContain("[1] A\nURL: https://a.test/\nalpha");
  });
  test("history: newest turns within the budget, starting with a user turn", () => {
    const history = [
      { role: "user" as const, content: "q1".padEnd(30) },
      { role: "assistant" as const, content: "a1".padEnd(30) },
      { role: "user" as const, content: "q2".padEnd(30) },
      { role: "assistant" as const, content: "a2".padEnd(30) },
    ];
    expect(conversation(history, "now", 1_000).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    // 90 characters fit three turns, but the oldest kept must be a user turn.
    expect(conversation(history, "now", 90).map((m) => String(m.content).trim())).toEqual(["q2", "a2", "now"]);
    expect(conversation(history, "now", 0)).toEqual([{ role: "user", content: "now" }]);
  });
});

describe("LLM_* environment", () => {
  test("a provider without a model fails at start, naming LLM_MODEL", () => {
    expect(() => loadEnv({ LLM_PROVIDER: "anthropic" })).toThrow(/LLM_MODEL: required when LLM_PROVIDER is set/);
  });
  test("bad values name their variable", () => {
    expect(() => loadEnv({ LLM_PROVIDER: "gemini", LLM_MODEL: "m" })).toThrow(/LLM_PROVIDER/);
    expect(() => loadEnv({ LLM_PROVIDER: "anthropic", LLM_MODEL: "m", LLM_BASE_URL: "localhost:11434" })).toThrow(
      /LLM_BASE_URL/,
    );
    expect(() => loadEnv({ LLM_TIMEOUT_MS: "soon" })).toThrow(/LLM_TIMEOUT_MS/);
  });
  test("unset provider: the retrieval agent, defaults in place", () => {
    const env = loadEnv({});
    expect(env.LLM_PROVIDER).toBeUndefined();
    expect(env.LLM_TIMEOUT_MS).toBe(60_000);
  });
});

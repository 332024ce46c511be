/** The model agent's prompt pieces: citations → sources, the history budget, the environment's checks. */
import { describe, expect, test } from "bun:test";
import { CitationFilter } from "../src/agent/llm/citations.ts";
import { conversation, systemPrompt } from "../src/agent/llm/prompt.ts";
import { loadEnv } from "../src/config/env.ts";

const passages = [
  { url: "https://a.test/", title: "A", heading: "A", content: "alpha" },
  { url: "https://b.test/", title: "B", heading: "Setup", content: "beta" },
  { url: "https://a.test/", title: "A", heading: "More", content: "alpha two" },
];

/** Feeds the pieces through a filter over `passages`; the shown text and the sources. */
function filtered(pieces: string[], urls = passages.map((p) => p.url)) {
  const f = new CitationFilter(urls);
  const shown = pieces.map((p) => f.push(p));
  shown.push(f.end());
  return { text: shown.join(""), shown, sources: f.sources };
}

describe("citations", () => {
  test("renumbered as documents in order of first citation; [n, m] and [n][m]; a document's passages share its number", () => {
    const r = filtered(["x [2] y [1][3] z [2, 1]."]);
    expect(r.sources).toEqual(["https://b.test/", "https://a.test/"]);
    expect(r.text).toBe("x [1] y [2] z [1][2].");
  });
  test("[0] and [7] of 3 are dropped; none cited → no sources", () => {
    expect(filtered(["a [0] b [7] c [0, 9]."])).toMatchObject({ text: "a  b  c .", sources: [] });
    expect(filtered(["anything"], [])).toMatchObject({ text: "anything", sources: [] });
  });
  test("a marker split across deltas is held until it completes, never shown half", () => {
    const r = filtered(["See [", "2", "] and [7", "] then [1", ", 3]", " end"]);
    expect(r.shown.join("|")).toBe("See ||[1] and | then |[2]| end|");
    expect(r.text).toBe("See [1] and  then [2] end");
    expect(r.sources).toEqual(["https://b.test/", "https://a.test/"]);
  });
  test("an unfinished bracket is text; a long one is released without waiting; code fences keep their brackets", () => {
    expect(filtered(["tail [2"]).text).toBe("tail [2");
    const long = filtered(["x [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2", " and on"]);
    expect(long.shown[0]).toBe("x [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2");
    expect(filtered(["```js\nconst v = a[0", "];\n```\nok [9]"]).text).toBe("```js\nconst v = a[0];\n```\nok ");
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

/** The default retrieval agent against the fixture knowledge base (tests/fixtures/kb.jsonl) and the sample docs. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { retrievalAgent } from "../src/agent/retrieval.ts";
import type { AgentChunk, ChatTurn } from "../src/agent/types.ts";
import type { Certainty } from "../src/contract/analytics.ts";
import { DEFAULT_KB_ID } from "../src/knowledge/index.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const store = await testStore();
const agent = retrievalAgent(store.db);

async function ask(message: string, history: ChatTurn[] = []) {
  const chunks: AgentChunk[] = [];
  let certainty: Certainty | undefined;
  for await (const c of agent.respond({
    message,
    history,
    signal: new AbortController().signal,
    knowledgeBaseId: DEFAULT_KB_ID,
  }))
    if (c.type === "certainty") certainty = c.certainty;
    else chunks.push(c);
  const text = chunks.flatMap((c) => (c.type === "token" ? [c.content] : [])).join("");
  const sources = chunks.findLast((c) => c.type === "sources");
  return { text, sources: sources?.type === "sources" ? sources.sources : undefined, chunks, certainty };
}

describe("retrieval agent", () => {
  test("answers from the matching documents and cites them", async () => {
    const { text, sources } = await ask("How do I generate OpenAPI documentation with a Swagger UI page?");
    expect(sources![0]).toBe("https://wren.example/docs/openapi");
    expect(text.toLowerCase()).toContain("openapi");
  });

  test("different questions draw on different documents", async () => {
    const a = await ask("How do I deploy my app to Cloudflare Workers?");
    const b = await ask("How do I write unit tests for my routes?");
    expect(a.sources![0]).toBe("https://wren.example/docs/cloud-workers");
    expect(b.sources![0]).toBe("https://wren.example/docs/testing");
    expect(a.text).not.toBe(b.text);
  });

  test("the page that answers comes before release notes that mention the same words", async () => {
    // The 2.0 release notes mention signed cookies, deduplicated plugins and validation too.
    for (const [q, url] of [
      ["How do I sign cookies with a secret?", "cookies"],
      ["How does plugin deduplication work?", "plugins"],
      ["How are request bodies validated?", "validation"],
    ]) {
      const { sources } = await ask(q!);
      expect({ q, first: sources![0] }).toEqual({ q, first: `https://wren.example/docs/${url}` });
    }
  });

  test("sources are distinct pages, at most three", async () => {
    const { sources } = await ask("How do lifecycle hooks, plugins and guards work together?");
    expect(sources!.length).toBeGreaterThan(0);
    expect(sources!.length).toBeLessThanOrEqual(3);
    expect(new Set(sources).size).toBe(sources!.length);
  });

  test("says so plainly, with empty sources, when nothing matches", async () => {
    const { text, sources } = await ask("zxqwv plorbnik glimmerfax");
    expect(sources).toEqual([]);
    expect(text).toContain("could not find");
  });

  test("a question that shares only a stray word with the documents is not answered from them", async () => {
    for (const q of [
      "What is the weather in Paris today?",
      "Tell me about football",
      "Can you explain quantum entanglement?",
    ]) {
      const { text, sources } = await ask(q);
      expect({ q, sources }).toEqual({ q, sources: [] });
      expect(text).toContain("could not find");
    }
  });

  test("passages that cover more of the question come first", async () => {
    const { sources } = await ask("How do I install the Finch client?");
    expect(sources![0]).toBe("https://wren.example/docs/finch-client");
  });

  test("a follow-up uses the conversation so far", async () => {
    const after = (question: string): ChatTurn[] => [
      { role: "user", content: question },
      { role: "assistant", content: "…" },
    ];
    // The same elliptical question, after two different topics: each conversation's own page.
    const cookies = await ask("How do I sign it?", after("How do I use cookies in Wren?"));
    const jwt = await ask("How do I sign it?", after("How do I issue JSON Web Tokens in Wren?"));
    expect(cookies.sources![0]).toBe("https://wren.example/docs/cookies");
    expect(jwt.sources![0]).toBe("https://wren.example/docs/jwt");
  });

  test("a follow-up that names a new topic is answered on that topic", async () => {
    const history: ChatTurn[] = [
      { role: "user", content: "How do I stream a reply?" },
      { role: "assistant", content: "…" },
    ];
    const { sources } = await ask("And what are the rate limits?", history);
    expect(sources![0]).toBe("https://parley.example/docs/rate-limits");
  });

  test("the sample knowledge base answers questions about Parley", async () => {
    const { sources, text } = await ask("What happens when I exceed the daily quota of my plan?");
    expect(sources).toContain("https://parley.example/docs/rate-limits");
    expect(text).toContain("daily_quota_exceeded");
  });

  test("certainty: answered when a passage holds the question, no_sources when nothing does", async () => {
    expect((await ask("What happens when I exceed the daily quota of my plan?")).certainty).toBe("answered");
    expect((await ask("recette de la ratatouille provençale")).certainty).toBe("no_sources");
  });

  test("each page's source comes just before the marker opening its quote; the last chunk holds them all", async () => {
    const { chunks, sources } = await ask("What happens when I exceed the daily quota of my plan?");
    expect(chunks[0]).toEqual({ type: "sources", sources: sources!.slice(0, 1) });
    expect(chunks.at(-1)).toEqual({ type: "sources", sources: sources! });
    expect(chunks.filter((c) => c.type === "token").length).toBeGreaterThan(5);
    let known: string[] = [];
    let text = "";
    for (const c of chunks) {
      if (c.type === "sources") {
        expect(c.sources.slice(0, known.length)).toEqual(known);
        known = c.sources;
      } else if (c.type === "token") {
        text += c.content;
        for (const m of text.matchAll(/^\[(\d+)\]/gm)) expect(Number(m[1])).toBeLessThanOrEqual(known.length);
      }
    }
  });

  test("stops when aborted", async () => {
    const abort = new AbortController();
    const seen: AgentChunk[] = [];
    const run = (async () => {
      for await (const c of agent.respond({
        message: "How do lifecycle hooks work?",
        history: [],
        signal: abort.signal,
        knowledgeBaseId: DEFAULT_KB_ID,
      })) {
        seen.push(c);
        if (seen.length === 3) abort.abort(new Error("stop"));
      }
    })();
    await expect(run).rejects.toThrow("stop");
    expect(seen).toHaveLength(3);
  });

  test("question text cannot inject tsquery syntax", async () => {
    for (const q of ["a & | ! ( ) :* '", "'); drop table chunks; --", "\\\\ \u0000 <-> !!!"]) {
      const r = await ask(q);
      expect(r.sources).toBeDefined();
    }
  });
});

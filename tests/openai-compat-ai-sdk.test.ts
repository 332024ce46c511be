/**
 * The AI SDK's own OpenAI provider (`@ai-sdk/openai`), whose default model speaks the Responses
 * API: generateText and streamText against POST /v1/responses, with the sources it exposes, a
 * follow-up through previousResponseId, and a refused request; over a real listening server.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateText, streamText } from "ai";
import { type Harness, harness, listen } from "./helpers/app.ts";

setDefaultTimeout(30_000);

const QUESTION = "How do I validate a request body?";
let h: Harness;
let url: string;
let key: string;

beforeAll(async () => {
  h = await harness();
  url = listen(h.app).url;
  key = await h.key();
}, 120_000);

const parley = () => createOpenAI({ baseURL: `${url}/v1`, apiKey: key });

/** Every source the SDK exposes is a URL the text links to. */
function expectSources(text: string, sources: readonly { sourceType: string; url?: string; title?: string }[]) {
  expect(sources.length).toBeGreaterThan(0);
  for (const s of sources) {
    expect(s.sourceType).toBe("url");
    expect(s.url).toMatch(/^https?:\/\//);
    expect(s.title?.length).toBeGreaterThan(0);
    expect(text).toContain(`](${s.url})`);
  }
}

describe("@ai-sdk/openai (Responses API)", () => {
  test("generateText: the text with its links, the sources, the response id; a follow-up with previousResponseId", async () => {
    const r = await generateText({ model: parley()("default"), prompt: QUESTION });
    expect(r.text).toMatch(/\[1\]\(https?:\/\/[^)\s]+\)/);
    expectSources(r.text, r.sources as never);
    expect(r.finishReason).toBe("stop");
    const responseId = (r.providerMetadata?.openai as { responseId?: string } | undefined)?.responseId;
    expect(responseId).toMatch(/^resp_/);

    const next = await generateText({
      model: parley()("default"),
      prompt: "What status does an invalid one get?",
      providerOptions: { openai: { previousResponseId: responseId! } },
    });
    expect(next.text.length).toBeGreaterThan(0);
    const conv = await h.call("GET", "/v1/conversations?limit=1", { key });
    const detail = await h.call("GET", `/v1/conversations/${conv.json.data[0]!.id}`, { key });
    expect(detail.json.messages.map((m: { content: string }) => m.content)[2]).toBe(
      "What status does an invalid one get?",
    );
  });

  test("a conversation passed back as messages: its answers as item_references to the stored replies", async () => {
    const first = await generateText({ model: parley()("default"), prompt: QUESTION });
    const next = await generateText({
      model: parley()("default"),
      messages: [
        { role: "user", content: QUESTION },
        ...first.response.messages,
        { role: "user", content: "What status does an invalid one get?" },
      ],
    });
    expect(next.text.length).toBeGreaterThan(0);
    // A new conversation holding the client's history: the referenced answer's stored text in it.
    const list = await h.call("GET", "/v1/conversations?limit=1", { key });
    const conv = await h.call("GET", `/v1/conversations/${list.json.data[0]!.id}`, { key });
    const stored = conv.json.messages.map((m: { role: string; content: string }) => m.role);
    expect(stored).toEqual(["user", "assistant", "user", "assistant"]);
    expect(conv.json.messages[1]!.content).toBe(first.text.replace(/\[(\d+)\]\([^)\s]+\)/g, "[$1]"));
  });

  test("streamText: the text with its links, streamed token by token (each source comes before its marker), sources as stream parts", async () => {
    const r = streamText({ model: parley()("default"), prompt: QUESTION });
    const parts: string[] = [];
    for await (const t of r.textStream) parts.push(t);
    // The retrieval agent's answer opens with [1]: it no longer holds the rest until the end.
    expect(parts.length).toBeGreaterThan(5);
    expect(parts[0]).toMatch(/^\[1\]\(/);
    const text = parts.join("");
    expect(text).toBe(await r.text);
    expectSources(text, (await r.sources) as never);
    expect(await r.finishReason).toBe("stop");
  });

  test("a refused request: an APICallError with OpenAI's error body", async () => {
    const e = await generateText({
      model: parley()("no-such-knowledge-base"),
      prompt: QUESTION,
      maxRetries: 0,
    }).catch((x) => x);
    expect(APICallError.isInstance(e)).toBe(true);
    expect(e.statusCode).toBe(404);
    expect(JSON.parse(e.responseBody).error).toMatchObject({ code: "not_found", param: "model" });
  });
});

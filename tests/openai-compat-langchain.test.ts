/**
 * LangChain's ChatOpenAI against Parley, over Chat Completions and (useResponsesApi) the
 * Responses API: its users see the citations as Markdown links in the text (it drops Chat
 * Completions annotations; it keeps Responses ones as `citation` content blocks), a follow-up
 * with previous_response_id, streaming, and a refused model as its typed error.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
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

const chat = (useResponsesApi: boolean, model = "default") =>
  new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${url}/v1` }, maxRetries: 0, useResponsesApi });

/** A message's text, whether its content is a string or blocks. */
const textOf = (m: AIMessage | AIMessageChunk) =>
  typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? String(p.text) : "")).join("");

const LINK = /\[1\]\(https?:\/\/[^)\s]+\)/;

for (const useResponsesApi of [false, true]) {
  describe(`LangChain ChatOpenAI, useResponsesApi: ${useResponsesApi}`, () => {
    test("invoke: the links in the text; stream: the same text", async () => {
      const m = await chat(useResponsesApi).invoke(QUESTION);
      expect(textOf(m)).toMatch(LINK);
      let streamed = "";
      for await (const c of await chat(useResponsesApi).stream(QUESTION)) streamed += textOf(c);
      expect(streamed).toBe(textOf(m));
    });

    test("a model that is no knowledge base of the key: its 404", async () => {
      const e = await chat(useResponsesApi, "no-such-knowledge-base")
        .invoke(QUESTION)
        .catch((x) => x);
      expect(e.status).toBe(404);
      expect(String(e.message)).toContain("does not exist");
    });
  });
}

test("useResponsesApi: annotations as citation blocks, and previous_response_id continues the conversation", async () => {
  const llm = chat(true);
  const m = await llm.invoke(QUESTION);
  const blocks = Array.isArray(m.content) ? m.content : [];
  const annotations = blocks.flatMap(
    (b) => ((b as { annotations?: unknown[] }).annotations ?? []) as { url: string }[],
  );
  expect(annotations.length).toBeGreaterThan(0);
  for (const a of annotations) expect(textOf(m)).toContain(`](${a.url})`);
  const id = String(m.response_metadata?.id ?? m.id);
  expect(id).toMatch(/^resp_/);
  const next = await llm.invoke("What status does an invalid one get?", { previous_response_id: id } as never);
  expect(textOf(next).length).toBeGreaterThan(0);
  const list = await h.call("GET", "/v1/conversations?limit=1", { key });
  const conv = await h.call("GET", `/v1/conversations/${list.json.data[0]!.id}`, { key });
  expect(conv.json.messages.map((x: { content: string }) => x.content)[2]).toBe("What status does an invalid one get?");
});

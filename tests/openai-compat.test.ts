/**
 * The OpenAI-compatible door through the clients people use: the official `openai` SDK
 * (create with and without stream, stream() helpers, models, typed errors, its own retry on 429)
 * and `@ai-sdk/openai-compatible` (generateText, streamText), over a real listening server.
 * With the retrieval agent here; tests/openai-compat-llm.test.ts runs them on the model fakes.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import { sql } from "drizzle-orm";
import OpenAI from "openai";
import { createKey } from "../src/auth/keys-admin.ts";
import { rowsOf } from "../src/db/rows.ts";
import { createKnowledgeBase, DEFAULT_KB_ID, ingestDocuments } from "../src/knowledge/index.ts";
import { MAX_COMPLETION_MESSAGES } from "../src/openai-compat/request.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { expectStatus, type Harness, harness, listen } from "./helpers/app.ts";

setDefaultTimeout(30_000);

const QUESTION = "How do I validate a request body?";
let h: Harness;
let url: string;
let key: string;
/** The server's clock: real time, unless the rate-limit test holds it. */
let frozen: number | null = null;

beforeAll(async () => {
  h = await harness({ now: () => frozen ?? Date.now() });
  url = listen(h.app).url;
  key = await h.key();
}, 120_000);

const client = (apiKey = key, opts: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
  new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0, ...opts });

/** The stored text of an answer: its Markdown links back to the plain markers Parley stores. */
const unlinked = (content: string) => content.replace(/\[(\d+)\]\([^)\s]+\)/g, "[$1]");

/** Every [k] of the content is a link to sources[k-1], annotated at its exact place. */
function expectAnnotated(content: string, annotations: OpenAI.ChatCompletionMessage.Annotation[]) {
  const markers = [...content.matchAll(/\[(\d+)\]\(([^)\s]+)\)/g)];
  expect(markers.length).toBeGreaterThan(0);
  expect(annotations).toHaveLength(markers.length);
  expect([...unlinked(content).matchAll(/\[\d+\]/g)]).toHaveLength(markers.length);
  for (const [i, a] of annotations.entries()) {
    expect(a.type).toBe("url_citation");
    expect(content.slice(a.url_citation.start_index, a.url_citation.end_index)).toBe(markers[i]![0]);
    expect(markers[i]![2]).toBe(a.url_citation.url);
    expect(a.url_citation.url).toMatch(/^https?:\/\//);
    expect(a.url_citation.title.length).toBeGreaterThan(0);
  }
}

describe("openai SDK: chat.completions", () => {
  test("create: a chat.completion with annotations and zero usage, stored as a conversation named by the header", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: "default", messages: [{ role: "user", content: QUESTION }] })
      .withResponse();
    expect(data.id).toMatch(/^chatcmpl-msg_/);
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("default");
    expect(Math.abs(data.created - Date.now() / 1000)).toBeLessThan(60);
    const choice = data.choices[0]!;
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.role).toBe("assistant");
    expect(choice.message.refusal).toBeNull();
    expect(choice.message.content!.length).toBeGreaterThan(50);
    expectAnnotated(choice.message.content!, choice.message.annotations!);
    expect(data.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(response.headers.get("x-ratelimit-limit")).toBeTruthy();

    const conversationId = response.headers.get("x-parley-conversation-id")!;
    expect(conversationId).toMatch(/^conv_/);
    const conv = await h.call("GET", `/v1/conversations/${conversationId}`, { key });
    expectStatus(conv, 200);
    expect(conv.json.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(conv.json.messages[1]?.content).toBe(unlinked(choice.message.content!));
    expect(data.id).toBe(`chatcmpl-${conv.json.messages[1]?.id}`);
  });

  test("stream with include_usage, in a for-await loop: role first, annotations before the end, finish_reason, usage chunk", async () => {
    const stream = await client().chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text.length).toBeGreaterThan(50);
    const withChoice = chunks.filter((c) => c.choices.length);
    expect(withChoice.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    expect(withChoice.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    const annotated = withChoice.findIndex((c) => (c.choices[0]!.delta as { annotations?: unknown[] }).annotations);
    expect(annotated).toBe(withChoice.length - 2);
    expectAnnotated(text, (withChoice[annotated]!.choices[0]!.delta as { annotations: never[] }).annotations);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  test("stream without include_usage: no usage chunk; the raw wire ends with data: [DONE]", async () => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "default", stream: true, messages: [{ role: "user", content: QUESTION }] }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-parley-conversation-id")).toMatch(/^conv_/);
    const raw = await res.text();
    expect(raw.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(raw).not.toContain('"usage"');
  });

  test("stream() helpers: content events, and finalChatCompletion() carrying the annotations", async () => {
    const runner = client().chat.completions.stream({
      model: "default",
      messages: [{ role: "user", content: QUESTION }],
    });
    let deltas = "";
    runner.on("content", (delta) => {
      deltas += delta;
    });
    const final = await runner.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(message.content).toBe(deltas);
    expect(final.choices[0]!.finish_reason).toBe("stop");
    expectAnnotated(message.content!, message.annotations!);
  });

  test("system messages, earlier turns and unknown fields are accepted; the client's history is stored", async () => {
    const { data, response } = await client()
      .chat.completions.create({
        model: "default",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "What is Wren?" },
          { role: "assistant", content: "A web framework." },
          { role: "user", content: [{ type: "text", text: QUESTION }] },
        ],
        temperature: 0.2,
        max_tokens: 100,
        user: "user-42",
        // @ts-expect-error an unknown field, ignored as OpenAI does
        some_future_field: true,
      })
      .withResponse();
    expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
    const conv = await h.call("GET", `/v1/conversations/${response.headers.get("x-parley-conversation-id")}`, { key });
    expect(conv.json.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "What is Wren?"],
      ["assistant", "A web framework."],
      ["user", QUESTION],
      ["assistant", unlinked(data.choices[0]!.message.content!)],
    ]);
    expect(conv.json.title).toBe("What is Wren?");
  });

  test("X-Parley-Conversation-Id continues the stored conversation (its history, not the messages')", async () => {
    const first = await client()
      .chat.completions.create({ model: "default", messages: [{ role: "user", content: "What is a plugin?" }] })
      .withResponse();
    const id = first.response.headers.get("x-parley-conversation-id")!;
    const second = await client()
      .chat.completions.create(
        {
          model: "default",
          messages: [
            { role: "user", content: "ignored history" },
            { role: "user", content: "How do I add a prefix to it?" },
          ],
        },
        { headers: { "X-Parley-Conversation-Id": id } },
      )
      .withResponse();
    expect(second.response.headers.get("x-parley-conversation-id")).toBe(id);
    const conv = await h.call("GET", `/v1/conversations/${id}`, { key });
    expect(conv.json.messages.map((m) => m.content).slice(0, 3)).toEqual([
      "What is a plugin?",
      unlinked(first.data.choices[0]!.message.content!),
      "How do I add a prefix to it?",
    ]);
    expect(conv.json.messages).toHaveLength(4);

    const unknown = await client()
      .chat.completions.create(
        { model: "default", messages: [{ role: "user", content: "hi" }] },
        { headers: { "X-Parley-Conversation-Id": "conv_00000000000000000000000000" } },
      )
      .catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.param).toBe("X-Parley-Conversation-Id");
  });

  test("Idempotency-Key: a retry gets the same completion, nothing new is stored", async () => {
    const body = { model: "default", messages: [{ role: "user" as const, content: "What is a plugin?" }] };
    const opts = { headers: { "Idempotency-Key": `idem-${crypto.randomUUID()}` } };
    const a = await client().chat.completions.create(body, opts).withResponse();
    const b = await client().chat.completions.create(body, opts).withResponse();
    expect(b.data.id).toBe(a.data.id);
    expect(b.data.choices[0]!.message).toEqual(a.data.choices[0]!.message);
    expect(b.response.headers.get("x-parley-conversation-id")).toBe(a.response.headers.get("x-parley-conversation-id"));
    const stream = await client()
      .chat.completions.create({ ...body, stream: true }, opts)
      .catch((e) => e);
    expect(stream).toBeInstanceOf(OpenAI.UnprocessableEntityError);
  });
});

describe("openai SDK: models", () => {
  test("models.list() and retrieve(): the knowledge bases this key may use", async () => {
    const models = [];
    for await (const m of client().models.list()) models.push(m);
    expect(models).toEqual([{ id: "default", object: "model", created: expect.any(Number), owned_by: "parley" }]);
    expect(await client().models.retrieve("default")).toMatchObject({ id: "default", object: "model" });
  });
});

describe("openai SDK: knowledge bases as models, scoped to the key", () => {
  test("a foreign knowledge base is a 404 in OpenAI's shape; a scoped key lists, retrieves and chats with its own", async () => {
    const other = await createKnowledgeBase(h.store.db, { name: `zoo-${crypto.randomUUID().slice(0, 8)}` });
    const url0 = `https://zoo.example/${other.id}`;
    await ingestDocuments(
      h.store.db,
      [{ url: url0, title: "Zebra handbook", content: "# Zebras\nZebras graze in herds on the savanna." }],
      { kbId: other.id },
    );
    for (const model of [other.name, other.id]) {
      const e = await client()
        .chat.completions.create({ model, messages: [{ role: "user", content: "Where do zebras graze?" }] })
        .catch((x) => x);
      expect(e).toBeInstanceOf(OpenAI.NotFoundError);
      expect(e.error).toMatchObject({ code: "not_found", param: "model" });
      expect(
        await client()
          .models.retrieve(model)
          .catch((x) => x),
      ).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect((await client().models.list()).data.map((m) => m.id)).not.toContain(other.name);

    const { secret } = await createKey(h.store.db, { name: "zoo", plan: "pro", knowledgeBaseIds: [other.id] });
    const zoo = client(secret);
    expect((await zoo.models.list()).data).toEqual([
      { id: other.name, object: "model", created: expect.any(Number), owned_by: "parley" },
    ]);
    expect((await zoo.models.retrieve(other.id)).id).toBe(other.name);
    for (const model of ["default", other.name, other.id]) {
      const done = await zoo.chat.completions.create({
        model,
        messages: [{ role: "user", content: "Where do zebras graze?" }],
      });
      expect(done.model).toBe(other.name);
      expect(done.choices[0]!.message.annotations!.map((a) => a.url_citation)).toEqual([
        expect.objectContaining({ url: url0, title: "Zebra handbook" }),
      ]);
    }
    // The default knowledge base is not this key's: refused.
    expect(
      await zoo.chat.completions
        .create({ model: "default-nope", messages: [{ role: "user", content: "hi" }] })
        .catch((x) => x),
    ).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("openai SDK: a continued conversation keeps its knowledge base", () => {
  test("`default` then means the conversation's own (answer's model and citation titles from it); another one → 400 param model", async () => {
    const other = await createKnowledgeBase(h.store.db, { name: `herd-${crypto.randomUUID().slice(0, 8)}` });
    const url0 = `https://herd.example/${other.id}`;
    await ingestDocuments(
      h.store.db,
      [{ url: url0, title: "Zebra handbook", content: "# Zebras\nZebras graze in herds on the savanna." }],
      { kbId: other.id },
    );
    const { secret } = await createKey(h.store.db, {
      name: "two",
      plan: "pro",
      knowledgeBaseIds: [DEFAULT_KB_ID, other.id],
    });
    const two = client(secret);
    const ask = [{ role: "user" as const, content: "Where do zebras graze?" }];
    const first = await two.chat.completions.create({ model: other.name, messages: ask }).withResponse();
    expect(first.data.model).toBe(other.name);
    const headers = { "x-parley-conversation-id": first.response.headers.get("x-parley-conversation-id")! };
    const next = await two.chat.completions.create({ model: "default", messages: ask }, { headers });
    expect(next.model).toBe(other.name);
    expect(next.choices[0]!.message.annotations!.map((a) => a.url_citation)).toEqual([
      expect.objectContaining({ url: url0, title: "Zebra handbook" }),
    ]);
    const e = await two.chat.completions.create({ model: DEFAULT_KB_ID, messages: ask }, { headers }).catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e.error).toMatchObject({ code: "invalid_request", param: "model" });
  });
});

describe("openai SDK: typed errors in OpenAI's shape", () => {
  test("a bad key → AuthenticationError", async () => {
    const e = await client("prl_not_a_real_key_000000000000000000")
      .models.list()
      .catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(e.status).toBe(401);
    expect(e.error).toMatchObject({ type: "authentication_error", code: "unauthorized", param: null });
  });

  test("an unknown model → NotFoundError naming the param (create and retrieve)", async () => {
    const e = await client()
      .chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.NotFoundError);
    expect(e.param).toBe("model");
    expect(
      await client()
        .models.retrieve("gpt-4o")
        .catch((x) => x),
    ).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("n: 2, tools, response_format json, a tool message, an image part, no user question → BadRequestError naming the param", async () => {
    const user = { role: "user" as const, content: "hi" };
    const cases: [Record<string, unknown>, string][] = [
      [{ n: 2 }, "n"],
      [{ tools: [{ type: "function", function: { name: "f", parameters: {} } }] }, "tools"],
      [{ response_format: { type: "json_object" } }, "response_format"],
      [{ messages: [user, { role: "tool", content: "x", tool_call_id: "t" }] }, "messages[1].role"],
      [
        { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] },
        "messages[0].content",
      ],
      [{ messages: [user, { role: "assistant", content: "prefill" }] }, "messages"],
      [{ messages: [] }, "messages"],
      [{ temperature: 3 }, "temperature"],
      [{ parley_citations: "footnotes" }, "parley_citations"],
    ];
    for (const [extra, param] of cases) {
      const e = await client()
        .chat.completions.create({ model: "default", messages: [user], ...extra } as never)
        .catch((x) => x);
      expect({ extra, ok: e instanceof OpenAI.BadRequestError }).toEqual({ extra, ok: true });
      expect({ extra, param: e.param }).toEqual({ extra, param });
    }
  });

  test("429 → RateLimitError; the SDK's own retry waits the retry-after and then succeeds", async () => {
    const limited = await h.key("enterprise", { rpm: 1, rpd: 1000 });
    const start = Date.now();
    frozen = start;
    expect((await client(limited).models.list()).data).toHaveLength(1);
    // 59 s later (by the server's clock) the minute still holds that request: refused for 1 s more.
    frozen = start + 59_000;
    const refused = await client(limited)
      .models.list()
      .catch((x) => x);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.headers.get("retry-after")).toBe("1");

    const calls: { status: number; at: number }[] = [];
    const counting: typeof fetch = Object.assign(
      async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await fetch(input, init);
        calls.push({ status: res.status, at: performance.now() });
        // The minute passes while the SDK waits out the retry-after.
        if (res.status === 429) frozen = start + 60_001;
        return res;
      },
      { preconnect: fetch.preconnect },
    );
    try {
      const page = await client(limited, { maxRetries: 2, fetch: counting }).models.list();
      expect(page.data).toHaveLength(1);
      expect(calls.map((c) => c.status)).toEqual([429, 200]);
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
    } finally {
      frozen = null;
    }
  });
});

describe("@ai-sdk/openai-compatible as a consumer", () => {
  const model = () =>
    createOpenAICompatible({ name: "parley", baseURL: `${url}/v1`, apiKey: key, includeUsage: true }).chatModel(
      "default",
    );

  test("generateText", async () => {
    const r = await generateText({ model: model(), prompt: QUESTION });
    expect(r.text.length).toBeGreaterThan(50);
    // The compatible provider drops annotations: the Markdown link is what its users see.
    expect(r.text).toMatch(/\[1\]\(https?:\/\/[^)\s]+\)/);
    expect(r.finishReason).toBe("stop");
  });

  test("streamText: links by default", async () => {
    const r = streamText({ model: model(), prompt: QUESTION });
    expect(await r.text).toMatch(/^\[1\]\(https?:\/\/[^)\s]+\)/);
  });

  test("streamText with parley_citations: markers (a provider option): token by token, plain markers", async () => {
    const r = streamText({
      model: model(),
      prompt: QUESTION,
      providerOptions: { parley: { parley_citations: "markers" } },
    });
    const parts: string[] = [];
    for await (const t of r.textStream) parts.push(t);
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.join("")).toStartWith("[1] ");
    expect(parts.join("")).toBe(await r.text);
    expect(await r.finishReason).toBe("stop");
    expect((await r.usage).inputTokens).toBe(0);
  });
});

describe("stream edges (scripted agents)", () => {
  const post = (base: string, secret: string, body: object) =>
    fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "default", messages: [{ role: "user", content: QUESTION }], ...body }),
    });

  test("a slow first token: the 200 and the role chunk go out after keepAliveMs, with pings, then the reply", async () => {
    const agent = scriptedAgent(["Slow", " [1]."], { silenceMs: 600, sources: ["https://x.test/a"] });
    const s = await harness({ store: h.store, agent, options: { keepAliveMs: 100 } });
    const base = listen(s.app).url;
    const res = await post(base, await s.key(), { stream: true });
    expect(res.status).toBe(200);
    const raw = await res.text();
    // A ping is only written once the response has started: it came before the first token.
    expect(raw.indexOf(": ping")).toBeGreaterThan(raw.indexOf('"role":"assistant"'));
    expect(raw.indexOf(": ping")).toBeLessThan(raw.indexOf('"content":"Slow"'));
    expect(raw).toContain('"url":"https://x.test/a"');
    expect(raw.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  test("text streams past each citation while the reply runs, each marker linked once its source is known; the end equals the answer not streamed", async () => {
    const [a, b] = ["https://x.test/a", "https://x.test/b (2)"];
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    // [3] never gets a source: it stays as it is, like `cite` leaves it.
    const tokens = ["See [1]", " here and [", "2]", " there", " more", " [3] end."];
    const growing = { 0: [a], 2: [a, b] };
    const agent = scriptedAgent(tokens, { growing, sources: [a, b], gate: { before: 4, open: gate } });
    const s = await harness({ store: h.store, agent });
    const openai = client(await s.key(), { baseURL: `${listen(s.app).url}/v1` });
    const stream = await openai.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: QUESTION }],
      stream: true,
    });
    let text = "";
    let annotations: OpenAI.ChatCompletionMessage.Annotation[] = [];
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      const delta = c.choices[0]?.delta as { annotations?: OpenAI.ChatCompletionMessage.Annotation[] } | undefined;
      annotations = [...annotations, ...(delta?.annotations ?? [])];
      // The agent waits at the gate: all this came while the reply was still running.
      if (text.endsWith(" there")) {
        expect(text).toBe("See [1](https://x.test/a) here and [2](https://x.test/b%20%282%29) there");
        open();
      }
    }
    expect(text).toBe("See [1](https://x.test/a) here and [2](https://x.test/b%20%282%29) there more [3] end.");
    const done = await openai.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: QUESTION }],
    });
    expect(done.choices[0]!.message.content).toBe(text);
    expect(annotations).toEqual(done.choices[0]!.message.annotations!);
    expect(annotations.map((x) => text.slice(x.url_citation.start_index, x.url_citation.end_index))).toEqual([
      "[1](https://x.test/a)",
      "[2](https://x.test/b%20%282%29)",
    ]);
  });

  test("an agent failure before the first token: OpenAI's error shape and status, stream or not", async () => {
    const s = await harness({ store: h.store, agent: scriptedAgent(["never"], { failAfter: 0 }) });
    const base = listen(s.app).url;
    const secret = await s.key();
    for (const stream of [false, true]) {
      const res = await post(base, secret, { stream });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({
        error: { type: "api_error", code: "generation_failed", param: null },
        request_id: expect.stringMatching(/^req_/),
      });
    }
  });

  test("a completion stopped with POST …/stop ends with finish_reason stop and is stored as stopped", async () => {
    const tokens = Array.from({ length: 200 }, (_, i) => ` t${i}`);
    const s = await harness({ store: h.store, agent: scriptedAgent(tokens, { delayMs: 10 }) });
    const base = listen(s.app).url;
    const secret = await s.key();
    const res = await post(base, secret, { stream: true });
    const conversation = res.headers.get("x-parley-conversation-id")!;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let raw = "";
    let stopped = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      const id = /"id":"chatcmpl-(msg_[0-9a-z]+)"/.exec(raw)?.[1];
      if (!stopped && id && raw.includes('"content":" t3"')) {
        stopped = true;
        const stop = await s.call("POST", `/v1/conversations/${conversation}/messages/${id}/stop`, { key: secret });
        expectStatus(stop, 200);
      }
    }
    const chunks = raw
      .split("\n\n")
      .filter((l) => l.startsWith("data: {"))
      .map((l) => JSON.parse(l.slice(6)));
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
    expect(raw.endsWith("data: [DONE]\n\n")).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    const conv = await s.call("GET", `/v1/conversations/${conversation}`, { key: secret });
    expect(conv.json.messages[1]).toMatchObject({ status: "stopped", content: text });
    expect(text.length).toBeLessThan(tokens.join("").length);
  });
});

describe("long histories", () => {
  /** `n` alternating turns, the last (n odd) from the user. */
  const turns = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}` }));

  test(`up to ${MAX_COMPLETION_MESSAGES} messages are stored whole; more → 400 naming messages, never a 5xx`, async () => {
    const at = await h.call("POST", "/v1/chat/completions", {
      key,
      json: { model: "default", messages: turns(MAX_COMPLETION_MESSAGES - 1) },
    });
    expectStatus(at, 200);
    const conversation = at.headers.get("x-parley-conversation-id")!;
    const [row] = await rowsOf<{ n: number }>(
      h.store.db,
      sql`select count(*)::int as n from messages where conversation_id = ${conversation}`,
    );
    expect(row!.n).toBe(MAX_COMPLETION_MESSAGES); // the history, then the reply
    // Once a history took a bind parameter per column and row: past 65,535 (about 16,400 turns), a 503 or a 500.
    for (const n of [MAX_COMPLETION_MESSAGES + 1, 17_001]) {
      const over = await h.call("POST", "/v1/chat/completions", {
        key,
        json: { model: "default", messages: turns(n) },
      });
      expect({ n, status: over.status }).toEqual({ n, status: 400 });
      expect(over.json).toMatchObject({
        error: { type: "invalid_request_error", code: "invalid_request", param: "messages" },
      });
      expect(over.headers.get("retry-after")).toBeNull();
    }
  });
});

describe("browsers (CORS on)", () => {
  test("a preflight with the openai SDK's headers is allowed; the page can read X-Parley-Conversation-Id", async () => {
    const origin = "https://app.example";
    const s = await harness({ store: h.store, options: { corsOrigins: [origin] } });
    const pre = await s.call("OPTIONS", "/v1/chat/completions", {
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,x-stainless-lang,x-stainless-retry-count",
      },
    });
    expect(pre.status).toBe(204);
    const allowed = pre.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const hdr of ["authorization", "content-type", "x-stainless-lang", "x-stainless-retry-count"])
      expect(allowed).toContain(hdr);
    const r = await s.call("POST", "/v1/chat/completions", {
      key: await s.key(),
      headers: { origin },
      json: { model: "default", messages: [{ role: "user", content: QUESTION }] },
    });
    expectStatus(r, 200);
    expect(r.headers.get("access-control-expose-headers")!.toLowerCase()).toContain("x-parley-conversation-id");
  });
});

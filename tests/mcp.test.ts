/**
 * /mcp through the MCP SDK's own client (Client + StreamableHTTPClientTransport) against a
 * listening server: the tools, their text and structured results, the same Bearer auth and
 * limits as the API, and a knowledge base the key may not use refused.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Agent, AgentChunk } from "../src/agent/types.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { DEFAULT_KB_ID } from "../src/db/schema.ts";
import { createKnowledgeBase, ingestDocuments } from "../src/knowledge/index.ts";
import { usageOf } from "../src/usage/service.ts";
import { expectError, expectStatus, type Harness, harness, keyIdOf, listen, send } from "./helpers/app.ts";

setDefaultTimeout(30_000);

let h: Harness;
let url: string;
let key: string;

beforeAll(async () => {
  h = await harness();
  url = listen(h.app).url;
  key = await h.key();
}, 120_000);

async function connect(secret: string | null = key): Promise<Client> {
  const client = new Client({ name: "parley-test", version: "1.0.0" });
  const headers: Record<string, string> = secret ? { authorization: `Bearer ${secret}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

type TextContent = { type: "text"; text: string }[];

describe("MCP over Streamable HTTP", () => {
  test("listTools: search, ask and list_knowledge_bases with their input schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "list_knowledge_bases", "search"]);
    const search = tools.find((t) => t.name === "search")!;
    expect(search.inputSchema.required).toEqual(["query"]);
    expect(Object.keys(search.inputSchema.properties!)).toEqual(["query", "knowledge_base", "limit"]);
    expect(client.getServerVersion()?.name).toBe("parley");
    await client.close();
  });

  test("search: ranked passages with URLs, as text and structuredContent", async () => {
    const client = await connect();
    const r = await client.callTool({ name: "search", arguments: { query: "validate a request body", limit: 3 } });
    expect(r.isError).toBeFalsy();
    const { results } = r.structuredContent as { results: { url: string; title: string; score: number }[] };
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]!.url).toBe("https://wren.example/docs/validation");
    expect(results.map((x) => x.score)).toEqual([...results.map((x) => x.score)].sort((a, b) => b - a));
    expect((r.content as TextContent)[0]!.text).toContain(results[0]!.url);

    // Labelled as the agent labels passages: a heading that is the title (the text before the
    // first subheading) is not repeated ("Cookies — Cookies").
    const cookies = await client.callTool({ name: "search", arguments: { query: "read and write cookies", limit: 3 } });
    const hits = (cookies.structuredContent as { results: { title: string; heading: string }[] }).results;
    expect(hits.some((x) => x.heading === x.title)).toBe(true);
    const labels = (cookies.content as TextContent)[0]!.text.split("\n").filter((l) => /^\[\d+\] /.test(l));
    expect(labels).toEqual(
      hits.map((x, i) => `[${i + 1}] ${x.heading && x.heading !== x.title ? `${x.title} — ${x.heading}` : x.title}`),
    );
    expect(labels.some((l) => l.endsWith("Cookies — Cookies"))).toBe(false);

    const none = await client.callTool({ name: "search", arguments: { query: "zyxwv qwplk frobnicate" } });
    expect((none.structuredContent as { results: unknown[] }).results).toEqual([]);
    await client.close();
  });

  test("ask: the agent's answer with its sources, stored as a conversation", async () => {
    const client = await connect();
    const r = await client.callTool({ name: "ask", arguments: { question: "How do I validate a request body?" } });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as { answer: string; sources: string[]; conversation_id: string };
    expect(out.sources[0]).toBe("https://wren.example/docs/validation");
    expect(out.answer).toContain("[1]");
    expect((r.content as TextContent)[0]!.text).toContain(`[1] ${out.sources[0]}`);
    const conv = await h.call("GET", `/v1/conversations/${out.conversation_id}`, { key });
    expectStatus(conv, 200);
    expect(conv.json.messages[1]).toMatchObject({ content: out.answer, sources: out.sources });
    await client.close();
  });

  test("ask continues a conversation given its conversation_id: same conversation, history used", async () => {
    const client = await connect();
    const first = await client.callTool({ name: "ask", arguments: { question: "How do I use cookies in Wren?" } });
    const { conversation_id } = first.structuredContent as { conversation_id: string };
    const next = await client.callTool({ name: "ask", arguments: { question: "How do I sign it?", conversation_id } });
    expect(next.isError).toBeFalsy();
    const answer = next.structuredContent as { conversation_id: string; sources: string[] };
    expect(answer.conversation_id).toBe(conversation_id);
    expect(answer.sources[0]).toBe("https://wren.example/docs/cookies");
    const stored = await h.call("GET", `/v1/conversations/${conversation_id}`, { key });
    expect(stored.json.messages).toHaveLength(4);
    const unknown = await client.callTool({
      name: "ask",
      arguments: { question: "And then?", conversation_id: "conv_01jd5x8r7mf6sb1b2k3n4p5q6r" },
    });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as TextContent)[0]!.text).toStartWith("not_found:");
    await client.close();
  });

  test("list_knowledge_bases: the ones this key may use", async () => {
    const client = await connect();
    const r = await client.callTool({ name: "list_knowledge_bases", arguments: {} });
    expect(r.structuredContent).toEqual({ knowledge_bases: [{ id: DEFAULT_KB_ID, name: "default" }] });
    await client.close();
  });

  test("a knowledge base the key may not use is refused (search and ask), as a tool error; its documents stay hidden", async () => {
    const other = await createKnowledgeBase(h.store.db, { name: `mcp-other-${crypto.randomUUID().slice(0, 8)}` });
    const secretUrl = `https://other.example/${other.id}`;
    await ingestDocuments(
      h.store.db,
      [{ url: secretUrl, title: "Zebra handbook", content: "# Zebras\nZebras graze in herds." }],
      { kbId: other.id },
    );
    const client = await connect();
    for (const [name, args] of [
      ["search", { query: "zebras graze", knowledge_base: other.name }],
      ["search", { query: "zebras graze", knowledge_base: other.id }],
      ["ask", { question: "Where do zebras graze?", knowledge_base: other.name }],
      ["search", { query: "plugins", knowledge_base: "kb_someone_elses" }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError).toBe(true);
      // In the API's words for a knowledge base, not the OpenAI door's "model".
      expect((r.content as TextContent)[0]!.text).toStartWith("not_found:");
      expect((r.content as TextContent)[0]!.text).toContain("knowledge base");
      expect((r.content as TextContent)[0]!.text).not.toContain("model");
    }
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(secretUrl);
    expect(await client.readResource({ uri: secretUrl }).catch((e) => e)).toBeInstanceOf(Error);
    await client.close();

    // A key scoped to that knowledge base sees it alone: listed, searched, read.
    const { secret } = await createKey(h.store.db, { name: "scoped", plan: "pro", knowledgeBaseIds: [other.id] });
    const scoped = await connect(secret);
    const listed = await scoped.callTool({ name: "list_knowledge_bases", arguments: {} });
    expect(listed.structuredContent).toEqual({ knowledge_bases: [{ id: other.id, name: other.name }] });
    const found = await scoped.callTool({ name: "search", arguments: { query: "zebras graze" } });
    expect((found.structuredContent as { results: { url: string }[] }).results.map((x) => x.url)).toEqual([secretUrl]);
    expect((await scoped.listResources()).resources.map((r) => r.uri)).toEqual([secretUrl]);
    await scoped.close();
  });

  test("resources: each document by its URL, listed and readable", async () => {
    const client = await connect();
    // Page by page: the store is shared with other files, whose documents may come first.
    const resources = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined);
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    const validation = resources.find((r) => r.uri === "https://wren.example/docs/validation");
    // Each resource carries its own document's title, not the template's.
    expect(validation).toMatchObject({ name: "Validation", title: "Validation", mimeType: "text/markdown" });
    expect(new Set(resources.map((r) => r.title)).size).toBeGreaterThan(1);
    const read = await client.readResource({ uri: validation!.uri });
    expect((read.contents[0] as { text: string }).text).toContain("body");
    const missing = await client.readResource({ uri: "https://nowhere.example/x" }).catch((e) => e);
    expect(missing).toBeInstanceOf(Error);
    await client.close();
  });

  test("a bad or missing key is refused before any tool (401), like the API", async () => {
    for (const secret of ["prl_not_a_real_key_000000000000000000", null]) {
      const error = await connect(secret).catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(401);
      expect(error.message).toContain("authentication_error");
    }
    const raw = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toContain("Bearer");
  });

  test("the key's limits apply: over its minute, 429", async () => {
    const limited = await h.key("enterprise", { rpm: 6, rpd: 1000 });
    // Connecting takes a few requests (initialize, its notification, the optional GET stream).
    const client = await connect(limited);
    let error: { code?: number; message?: string } | undefined;
    for (let i = 0; i < 10 && !error; i++)
      error = await client.listTools().then(
        () => undefined,
        (e) => e,
      );
    expect(error?.code).toBe(429);
    expect(error?.message).toContain("rate_limit_exceeded");
    await client.close();
  });
});

/** A JSON-RPC POST to /mcp as a client that batches (older MCP revisions allowed arrays). */
const rpc = (app: Harness["app"], secret: string, body: unknown) =>
  send(app, "POST", "/mcp", { key: secret, json: body, headers: { accept: "application/json, text/event-stream" } });
const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
/** A refused call's `error.data`: the API's error, with its headers. */
type Refusal = {
  type: string;
  code: string;
  status: number;
  retry_after?: number;
  headers: Record<string, string>;
  request_id: string;
};
type RpcAnswer = {
  id: number;
  result?: { isError?: boolean };
  error?: { code: number; message: string; data?: Refusal };
};
const today = () => new Date().toISOString().slice(0, 10);

describe("MCP JSON-RPC batches: each call is a request of its own", () => {
  test("over the key's minute, the calls past it get a JSON-RPC error with the rate limit; the others answer", async () => {
    const limited = await h.key("enterprise", { rpm: 5, rpd: 1000 });
    const batch = Array.from({ length: 8 }, (_, i) => toolCall(i + 1, "search", { query: "validate", limit: 1 }));
    const r = await rpc(h.app, limited, batch);
    expectStatus(r, 200);
    const answers = r.json as RpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // The answer's rate-limit headers are those of the last call admitted.
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    // The POST was the first request of the minute; each further call counted as one more.
    for (const a of answers.slice(0, 5)) expect(a.result?.isError).toBeFalsy();
    for (const a of answers.slice(5)) {
      expect(a.result).toBeUndefined();
      expect(a.error?.message).toStartWith("rate_limit_exceeded:");
      expect(a.error?.data).toMatchObject({ code: "rate_limit_exceeded", type: "rate_limit_error" });
      expect(a.error?.data?.retry_after).toBeGreaterThan(0);
      expect<string | null | undefined>(a.error?.data?.request_id).toBe(r.headers.get("x-request-id"));
      expect(a.error?.data?.headers.ratelimit).toContain('"minute";r=0');
    }
    // The minute is spent for every door, and the refused calls count as refusals.
    expectError(await h.call("GET", "/v1/conversations", { key: limited }), 429, "rate_limit_exceeded");
    const [usage] = await usageOf(h.store.db, [await keyIdOf(h.store, limited)], today(), today());
    expect(usage!.days[0]).toMatchObject({ requests: 5, refusals: 4 });
  });

  test("a batch of ask calls stops at the key's daily token budget", async () => {
    // Each reply reports 10 + 5 tokens, as a model provider would.
    const metered: Agent = {
      async *respond(): AsyncIterable<AgentChunk> {
        yield { type: "token", content: "ok" };
        yield { type: "usage", usage: { input_tokens: 10, output_tokens: 5 } };
        yield { type: "sources", sources: [] };
      },
    };
    const m = await harness({ agent: metered, store: h.store });
    const { secret, id } = await createKey(m.store.db, { name: "budget", plan: "pro", tpd: 30 });
    const batch = Array.from({ length: 6 }, (_, i) => toolCall(i + 1, "ask", { question: `question ${i}` }));
    const r = await rpc(m.app, secret, batch);
    expectStatus(r, 200);
    const answers = r.json as RpcAnswer[];
    // Asked one after the other, as separate requests would be: two replies reach the budget.
    expect(answers.filter((a) => a.result && !a.result.isError).map((a) => a.id)).toEqual([1, 2]);
    for (const a of answers.slice(2)) expect(a.error?.data?.code).toBe("token_quota_exceeded");
    const [usage] = await usageOf(m.store.db, [id], today(), today());
    expect(usage!.days[0]).toMatchObject({ chat_turns: 2, input_tokens: 20, output_tokens: 10 });
  });

  test("a batch the transport refuses runs nothing, and a batch of one call is counted once", async () => {
    const limited = await h.key("enterprise", { rpm: 3, rpd: 1000 });
    // An initialize inside a batch is refused whole (400), before any call.
    const refused = await rpc(h.app, limited, [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      toolCall(2, "search", { query: "validate" }),
    ]);
    expect(refused.status).toBe(400);
    const one = await rpc(h.app, limited, [toolCall(1, "search", { query: "validate", limit: 1 })]);
    expectStatus(one, 200);
    // (The SDK's transport answers a batch of one with the answer alone.)
    expect([one.json as RpcAnswer].flat()[0]!.result?.isError).toBeFalsy();
    // Two requests so far: one more is admitted.
    expectStatus(await h.call("GET", "/v1/conversations", { key: limited }), 200);
    expectError(await h.call("GET", "/v1/conversations", { key: limited }), 429, "rate_limit_exceeded");
  });
});

describe("MCP messages the SDK alone would mishandle", () => {
  const cancelled = (requestId: number) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId },
  });

  test("a cancellation in the same POST as the request it names: the request is answered, nothing hangs", async () => {
    for (const body of [
      [cancelled(1), toolCall(1, "search", { query: "validate", limit: 1 })],
      [
        toolCall(1, "search", { query: "validate", limit: 1 }),
        cancelled(1),
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ],
    ]) {
      const r = await rpc(h.app, key, body);
      expectStatus(r, 200);
      const [answer] = [r.json as RpcAnswer].flat();
      expect(answer!.id).toBe(1);
      expect(answer!.result?.isError).toBeFalsy();
    }
    // Alone, a cancellation is a notification like any other: accepted, no answer.
    expect((await rpc(h.app, key, cancelled(7))).status).toBe(202);
  });

  test("params that do not fit the method's schema: -32602 Invalid params naming the field, not -32603", async () => {
    const bad = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "search", arguments: [] } };
    const alone = await rpc(h.app, key, bad);
    expectStatus(alone, 200);
    expect((alone.json as RpcAnswer).error).toMatchObject({ code: -32602 });
    expect((alone.json as RpcAnswer).error?.message).toContain("params.arguments");
    // In a batch, only that call is refused; the others answer.
    const r = await rpc(h.app, key, [toolCall(1, "search", { query: "validate", limit: 1 }), bad]);
    expectStatus(r, 200);
    const answers = r.json as RpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual([1, 3]);
    expect(answers[0]!.result?.isError).toBeFalsy();
    expect(answers[1]!.error?.code).toBe(-32602);
  });
});

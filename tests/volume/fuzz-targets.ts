/**
 * The fuzz suite's targets beyond chat and conversations (every route): the
 * knowledge and key administration routes, feedback, usage, the OpenAI-compatible door, MCP,
 * and the operational ones, each with bodies shaped like its own (fields it knows, with wrong
 * types, bounds and unicode) as well as anything. Requests here are sent mostly as the admin key
 * C, which may write: the suite checks that a *rejected* request wrote nothing.
 */
import fc from "fast-check";

export interface Fixture {
  /** A knowledge base the fuzzer may change or delete, its document, and a key it may change or revoke. */
  kbId: string;
  docId: string;
  spareKeyId: string;
  /** B's conversation and replies (feedback targets). */
  convB: string;
  bReplyIds: string[];
  /** Ids of any kind: valid, another's, malformed. */
  id: fc.Arbitrary<string>;
  /** Query strings with limit, cursor and unknown parameters. */
  query: fc.Arbitrary<string>;
  /** Unpleasant strings. */
  nasty: fc.Arbitrary<string>;
}

/** A JSON object body with some of `fields` (each a generator of good and bad values), and extras. */
function objectBody(fields: Record<string, fc.Arbitrary<unknown>>, nasty: fc.Arbitrary<string>) {
  return fc
    .record({ ...fields, extra: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] })
    .chain((o) =>
      fc.oneof(
        fc.constant(o),
        nasty.map((s) => ({ ...o, [s.slice(0, 20)]: s })),
      ),
    )
    .map((o) => JSON.stringify(o));
}

export function adminTargets(f: Fixture) {
  const { nasty, id, query } = f;
  const text = fc.oneof(
    fc.string({ maxLength: 60, unit: "grapheme" }),
    nasty,
    fc.constantFrom<unknown>(42, null, [], {}),
  );
  const int = fc.oneof(fc.integer({ min: -10, max: 2_000_000 }), fc.constantFrom<unknown>("10", 1.5, null, 1e20));
  const kb = fc.oneof({ weight: 3, arbitrary: fc.constant(f.kbId) }, { weight: 2, arbitrary: id });
  const doc = fc.oneof({ weight: 3, arbitrary: fc.constant(f.docId) }, { weight: 2, arbitrary: id });
  const key = fc.oneof({ weight: 3, arbitrary: fc.constant(f.spareKeyId) }, { weight: 2, arbitrary: id });
  const reply = fc.oneof(fc.constantFrom(...f.bReplyIds), id);
  const language = fc.oneof(
    fc.constantFrom<unknown>("english", "german", "simple", "chinese", "klingon", "", null),
    text,
  );
  const kbBody = objectBody({ name: text, description: text, language }, nasty);
  const docBody = objectBody(
    {
      url: fc.oneof(fc.webUrl(), text),
      title: text,
      content: fc.oneof(fc.lorem({ maxCount: 30 }), text),
      language,
      metadata: fc.oneof(fc.jsonValue({ maxDepth: 2 }), text),
    },
    nasty,
  );
  const ndjson = fc.array(fc.oneof(docBody, nasty), { maxLength: 4 }).map((lines) => lines.join("\n"));
  const keyBody = objectBody(
    {
      name: text,
      plan: fc.oneof(fc.constantFrom<unknown>("free", "pro", "enterprise", "gold"), text),
      role: fc.oneof(fc.constantFrom<unknown>("chat", "admin", "root"), text),
      rpm: int,
      rpd: int,
      tpd: int,
      expires_at: fc.oneof(
        fc.constantFrom<unknown>(null, "2099-01-01T00:00:00Z", "2000-01-01T00:00:00Z", "tomorrow"),
        text,
      ),
      knowledge_base_ids: fc.oneof(fc.array(fc.oneof(kb, text), { maxLength: 3 }), text),
    },
    nasty,
  );
  const searchBody = objectBody({ query: text, limit: int }, nasty);
  const feedbackBody = objectBody(
    { rating: fc.oneof(fc.constantFrom<unknown>("up", "down", "sideways"), text), comment: text },
    nasty,
  );
  const completionBody = objectBody(
    {
      model: fc.oneof(fc.constantFrom<unknown>("default", "fuzz-kb", "gpt-4o"), kb, text),
      messages: fc.oneof(
        fc.array(
          fc.record(
            { role: fc.oneof(fc.constantFrom<unknown>("user", "system", "assistant", "tool"), text), content: text },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        text,
      ),
      stream: fc.oneof(fc.boolean(), text),
      max_tokens: int,
      temperature: fc.oneof(fc.double({ noNaN: true }), text),
      n: int,
    },
    nasty,
  );
  const responseBody = objectBody(
    {
      model: fc.oneof(fc.constantFrom<unknown>("default", "fuzz-kb", "gpt-4o"), kb, text),
      input: fc.oneof(
        text,
        fc.array(
          fc.record(
            {
              type: fc.constantFrom<unknown>("message", "item_reference", "input_image", undefined),
              id: fc.oneof(f.id, text),
              role: fc.oneof(fc.constantFrom<unknown>("user", "system", "assistant", "tool"), text),
              content: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom("input_text", "input_file"), text }))),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
      ),
      stream: fc.oneof(fc.boolean(), text),
      store: fc.oneof(fc.boolean(), text),
      max_output_tokens: int,
      previous_response_id: fc.oneof(
        f.id.map((i) => `resp_${i.slice(4)}`),
        text,
      ),
      tools: fc.oneof(fc.constant([]), fc.jsonValue({ maxDepth: 2 })),
      parley_citations: fc.oneof(fc.constantFrom<unknown>("links", "markers"), text),
    },
    nasty,
  );
  const arm = (weight: number, method: string, path: fc.Arbitrary<string>, body?: fc.Arbitrary<string>) => ({
    weight,
    arbitrary: fc.record({
      method: fc.constant(method),
      path,
      body: body ? fc.option(body, { nil: undefined, freq: 4 }) : fc.constant(undefined),
      admin: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  });
  return fc.oneof(
    arm(
      2,
      "GET",
      query.map((q) => `/v1/knowledge_bases${q}`),
    ),
    arm(2, "POST", fc.constant("/v1/knowledge_bases"), kbBody),
    arm(
      2,
      "GET",
      kb.map((k) => `/v1/knowledge_bases/${k}`),
    ),
    arm(
      2,
      "PATCH",
      kb.map((k) => `/v1/knowledge_bases/${k}`),
      kbBody,
    ),
    arm(
      1,
      "DELETE",
      id.map((k) => `/v1/knowledge_bases/${k}`),
    ),
    arm(
      2,
      "GET",
      fc.tuple(kb, query).map(([k, q]) => `/v1/knowledge_bases/${k}/documents${q}`),
    ),
    arm(
      3,
      "POST",
      kb.map((k) => `/v1/knowledge_bases/${k}/documents`),
      fc.oneof(docBody, ndjson),
    ),
    arm(
      2,
      "GET",
      fc.tuple(kb, doc).map(([k, d]) => `/v1/knowledge_bases/${k}/documents/${d}`),
    ),
    arm(
      1,
      "DELETE",
      fc.tuple(kb, id).map(([k, d]) => `/v1/knowledge_bases/${k}/documents/${d}`),
    ),
    arm(
      2,
      "POST",
      kb.map((k) => `/v1/knowledge_bases/${k}/search`),
      searchBody,
    ),
    arm(
      2,
      "GET",
      query.map((q) => `/v1/keys${q}`),
    ),
    arm(2, "POST", fc.constant("/v1/keys"), keyBody),
    arm(
      2,
      "GET",
      key.map((k) => `/v1/keys/${k}`),
    ),
    arm(
      2,
      "PATCH",
      key.map((k) => `/v1/keys/${k}`),
      keyBody,
    ),
    arm(
      1,
      "POST",
      key.map((k) => `/v1/keys/${k}/revoke`),
    ),
    arm(
      2,
      "PUT",
      reply.map((m) => `/v1/conversations/${f.convB}/messages/${m}/feedback`),
      feedbackBody,
    ),
    arm(
      1,
      "DELETE",
      reply.map((m) => `/v1/conversations/${f.convB}/messages/${m}/feedback`),
    ),
    arm(
      2,
      "GET",
      query.map((q) => `/v1/feedback${q}`),
    ),
    arm(
      1,
      "GET",
      fc
        .constantFrom("", "?from=2026-01-01", "?from=nope", "?to=2026-13-40", "?from=2026-02-01&to=2026-01-01")
        .map((q) => `/v1/usage${q}`),
    ),
    arm(3, "POST", fc.constant("/v1/chat/completions"), completionBody),
    arm(2, "POST", fc.constant("/v1/responses"), responseBody),
    arm(
      1,
      "GET",
      fc.oneof(reply, id).map((m) => `/v1/responses/resp_${m.slice(4)}`),
    ),
    arm(
      1,
      "GET",
      fc.oneof(
        fc.constant("/v1/models"),
        fc.oneof(kb, id).map((m) => `/v1/models/${m}`),
      ),
    ),
    mcpTargets(f, text, kb),
    arm(
      1,
      "GET",
      fc.constantFrom("/v1/openapi.json", "/docs", "/healthz", "/readyz", "/metrics", "/console", "/console/"),
    ),
  );
}

/** The Accept the MCP transport wants (both types), most of the time; else what a careless client sends. */
const mcpAccept = fc.oneof(
  { weight: 4, arbitrary: fc.constant("application/json, text/event-stream") },
  { weight: 1, arbitrary: fc.constantFrom("application/json", "text/event-stream", "*/*") },
);

/**
 * /mcp: single JSON-RPC messages and batches (arrays of up to a few calls, sometimes past the
 * transport's 100) mixing tool calls (search, ask, list_knowledge_bases), resource reads,
 * notifications, a stray initialize, duplicate ids and garbage. A third of the batches are sent
 * as key D, whose 10 requests a minute a batch soon spends: each call past them must be its own
 * JSON-RPC error while the others answer.
 */
export function mcpTargets(f: Fixture, text: fc.Arbitrary<unknown>, kb: fc.Arbitrary<string>) {
  const { nasty } = f;
  const args = fc.oneof(
    objectBody({ query: text, question: text, knowledge_base: kb, limit: fc.integer({ min: -2, max: 30 }) }, nasty).map(
      (s) => JSON.parse(s) as unknown,
    ),
    text,
  );
  // Valid JSON-RPC (a batch of them runs), with tool names and arguments good and bad.
  const toolCall = fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer(), fc.string({ maxLength: 8 })),
    method: fc.constant("tools/call"),
    params: fc.record(
      {
        name: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom<unknown>("search", "ask", "list_knowledge_bases") },
          { weight: 1, arbitrary: fc.oneof(fc.constant<unknown>("nope"), text) },
        ),
        arguments: args,
      },
      { requiredKeys: ["name"] },
    ),
  });
  const otherValid = fc.constantFrom<unknown>(
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { jsonrpc: "2.0", id: 2, method: "ping" },
    { jsonrpc: "2.0", id: 3, method: "resources/list" },
    { jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri: "https://fuzz.example/doc" } },
    { jsonrpc: "2.0", id: 5, method: "nope" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
    { jsonrpc: "2.0", id: 9, result: {} },
  );
  const clean = fc.oneof({ weight: 4, arbitrary: toolCall }, { weight: 2, arbitrary: otherValid });
  // What the transport refuses a whole batch for: not JSON-RPC, or an initialize among others.
  const broken = fc.oneof(
    fc.constantFrom<unknown>(
      { jsonrpc: "2.0", id: 1.5, method: "ping" },
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { id: 1, method: "tools/call" },
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
      },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const message = fc.oneof({ weight: 6, arbitrary: clean }, { weight: 1, arbitrary: broken });
  const batch = fc.oneof(
    { weight: 8, arbitrary: fc.array(clean, { minLength: 1, maxLength: 8 }) },
    { weight: 2, arbitrary: fc.array(message, { minLength: 2, maxLength: 6 }) },
    {
      weight: 1,
      arbitrary: fc.constant(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))),
    },
  );
  const body = fc.oneof(
    { weight: 2, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 6, arbitrary: batch.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: nasty },
  );
  return {
    weight: 12,
    arbitrary: fc.record({
      method: fc.constant("POST"),
      path: fc.constant("/mcp"),
      body: fc.option(body, { nil: undefined, freq: 8 }),
      admin: fc.boolean(),
      accept: mcpAccept,
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant("application/json") },
        { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/json; charset=utf-8") },
      ),
      limited: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  };
}

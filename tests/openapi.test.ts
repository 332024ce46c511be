/** The OpenAPI document: valid 3.1, and real responses match the schemas it states. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { dereference, validate } from "@readme/openapi-parser";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Elysia } from "elysia";
import { createLogger } from "../src/config/logger.ts";
import { buildOpenApi } from "../src/mod.ts";
import { expectError, expectStatus, harness, listen, type Reply, send, testApp, testPlugin } from "./helpers/app.ts";
import { readSse } from "./helpers/sse.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const key = await h.key();
const admin = await h.admin();
const raw = (await h.call("GET", "/v1/openapi.json")).json;
/** What the parser takes: an OpenAPI document type (the served one is checked against it by `validate`). */
type ParserInput = Exclude<Parameters<typeof validate>[0], string>;
const doc: any = await dereference(structuredClone(raw) as ParserInput);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const server = listen(h.app);

function expectMatches(reply: Reply, path: string, method: string, type = "application/json") {
  const schema = doc.paths[path]?.[method]?.responses?.[String(reply.status)]?.content?.[type]?.schema;
  expect(schema, `no schema for ${method} ${path} ${reply.status}`).toBeDefined();
  const check = ajv.compile(schema);
  const ok = check(reply.json);
  expect({ ok, errors: check.errors, body: reply.json }).toMatchObject({ ok: true });
}

describe("OpenAPI document", () => {
  test("is served without a key and is valid OpenAPI 3.1", async () => {
    expect(raw.openapi).toStartWith("3.1");
    const result = await validate(structuredClone(raw) as ParserInput);
    expect({ valid: result.valid, errors: result.valid ? [] : result.errors }).toEqual({ valid: true, errors: [] });
  });

  test("documents every route, the Bearer scheme, SSE events and rate-limit headers", () => {
    expect(Object.keys(raw.paths).sort()).toEqual([
      "/healthz",
      "/readyz",
      "/v1/analytics/gaps",
      "/v1/analytics/pages",
      "/v1/analytics/questions",
      "/v1/analytics/topics",
      "/v1/backup",
      "/v1/chat",
      "/v1/chat/completions",
      "/v1/conversations",
      "/v1/conversations/{id}",
      "/v1/conversations/{id}/messages",
      "/v1/conversations/{id}/messages/{message_id}/events",
      "/v1/conversations/{id}/messages/{message_id}/feedback",
      "/v1/conversations/{id}/messages/{message_id}/stop",
      "/v1/feedback",
      "/v1/keys",
      "/v1/keys/{id}",
      "/v1/keys/{id}/revoke",
      "/v1/knowledge_bases",
      "/v1/knowledge_bases/{id}",
      "/v1/knowledge_bases/{id}/documents",
      "/v1/knowledge_bases/{id}/documents/{doc_id}",
      "/v1/knowledge_bases/{id}/documents/{doc_id}/passages",
      "/v1/knowledge_bases/{id}/search",
      "/v1/knowledge_bases/{id}/sources",
      "/v1/knowledge_bases/{id}/sources/{source_id}",
      "/v1/knowledge_bases/{id}/sources/{source_id}/sync",
      "/v1/models",
      "/v1/models/{id}",
      "/v1/responses",
      "/v1/responses/{id}",
      "/v1/setup",
      "/v1/usage",
      "/v1/widget/challenges",
      "/v1/widget/sessions",
    ]);
    // Every operation has an id and, when it takes JSON, its named request body.
    const ops = Object.values(raw.paths).flatMap((p) => Object.values(p as Record<string, { operationId?: string }>));
    expect(ops.every((o) => typeof o.operationId === "string" && !o.operationId.includes("V1"))).toBe(true);
    for (const [path, name] of [
      ["/v1/knowledge_bases", "KnowledgeBaseCreate"],
      ["/v1/keys", "KeyCreate"],
      ["/v1/knowledge_bases/{id}/search", "SearchRequest"],
    ] as const)
      expect(raw.paths[path]?.post?.requestBody).toMatchObject({
        content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
      });
    // The dereferenced document: the same content types and statuses, walked as plain JSON.
    const upload = doc.paths["/v1/knowledge_bases/{id}/documents"].post;
    expect(Object.keys(upload.requestBody.content).sort()).toEqual([
      "application/json",
      "application/x-ndjson",
      "multipart/form-data",
    ]);
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(["200", "201", "403", "413", "415"]));
    expect(Object.keys(raw.paths["/v1/conversations/{id}"] ?? {}).sort()).toEqual(["delete", "get"]);
    expect(raw.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    const chat = doc.paths["/v1/chat"].post;
    expect(Object.keys(chat.responses["200"].content).sort()).toEqual(["application/json", "text/event-stream"]);
    expect(chat.requestBody.content["application/json"].schema.required).toEqual(["message"]);
    expect(Object.keys(chat.responses["429"].headers)).toContain("Retry-After");
    expect(Object.keys(chat.responses["200"].headers)).toContain("RateLimit");
  });

  test("Redocly's recommended rules report no errors", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(raw), absoluteRef: "/openapi.json", config });
    const errors = problems
      .filter((p) => p.severity === "error")
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  test("every schema is plain JSON Schema 2020-12 (a strict validator accepts it) and named once", () => {
    const strict = new Ajv2020({ strict: true, allErrors: true });
    addFormats(strict);
    for (const [name, schema] of Object.entries(raw.components.schemas))
      strict.addSchema(schema as object, `#/components/schemas/${name}`);
    const schemas: unknown[] = [];
    const collect = (v: any) => {
      if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v)) k === "schema" ? schemas.push(x) : collect(x);
    };
    collect(raw.paths);
    collect(raw.components.headers);
    const refs = JSON.stringify(raw.paths).match(/"\$ref":"#\/components\/schemas\/[A-Za-z]+"/g) ?? [];
    for (const s of [...Object.values(raw.components.schemas), ...schemas]) {
      const check = () => strict.compile(s as object);
      expect(check, JSON.stringify(s)).not.toThrow();
    }
    expect(JSON.stringify(raw)).not.toMatch(/"(error|~[a-z]+)":\s*"/); // TypeBox's custom messages and markers
    // The error body is defined once and referenced by every error response (the OpenAI-compatible
    // routes' once more, in OpenAI's shape).
    expect(JSON.stringify(raw).match(/"request_id"\]/g)).toHaveLength(2);
    expect(refs.filter((r) => r.includes("/ErrorBody")).length).toBeGreaterThan(20);
    expect(Object.keys(raw.components.schemas)).toEqual(
      expect.arrayContaining([
        "ErrorBody",
        "Error",
        "ChatRequest",
        "ChatReply",
        "StreamEvent",
        "ConversationList",
        "ConversationDetail",
      ]),
    );
  });

  test("servers, license, 405 with Allow, 401 with WWW-Authenticate — as the server sends them", async () => {
    expect(raw.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expect(raw.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    const get = doc.paths["/v1/conversations/{id}"].get;
    expect(Object.keys(get.responses["405"].headers)).toContain("Allow");
    expect(Object.keys(get.responses["401"].headers)).toContain("WWW-Authenticate");
    const r405 = await h.call("PUT", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", { key });
    expectMatches(r405, "/v1/conversations/{id}", "get");
    expect(r405.headers.get("allow")).toBe("GET, DELETE");
    const r401 = await h.call("GET", "/v1/conversations");
    expect(r401.headers.get("www-authenticate")).toStartWith("Bearer");
  });

  test("/docs is our own page: titled Parley API, its script from this server, nothing from a CDN", async () => {
    const withUi = testApp({ store: h.store, logger: createLogger("silent"), docsScript: () => "/* the UI */" });
    const r = await send(withUi, "GET", "/docs");
    expectStatus(r, 200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain("<title>Parley API</title>");
    expect(r.text).toContain('<script src="/docs/scalar.js">');
    expect(r.text).toContain('"url":"/v1/openapi.json"');
    expect(r.text).not.toMatch(/https?:\/\//);
    const ui = await send(withUi, "GET", "/docs/scalar.js");
    expect({ status: ui.status, type: ui.headers.get("content-type"), text: ui.text }).toEqual({
      status: 200,
      type: "text/javascript; charset=utf-8",
      text: "/* the UI */",
    });
    // Without a docsScript (an embedding without the runtime) the page says so and loads nothing.
    const bare = await h.call("GET", "/docs");
    expect(bare.text).not.toContain("<script");
    expect(bare.text).toContain("/v1/openapi.json");
    expectError(await h.call("GET", "/docs/scalar.js"), 404, "not_found");
  });

  test("/docs/generated.json (a second document) is gone", async () => {
    expectStatus(await h.call("GET", "/docs/generated.json"), 404);
  });

  test("an app embedding the plugin gets its document from buildOpenApi", async () => {
    const host = new Elysia().get("/", () => "mine").group("/chat-api", (a) => a.use(testPlugin({ store: h.store })));
    const embedded: any = buildOpenApi(host, { servers: [{ url: "https://example.org" }], maxMessageChars: 100 });
    expect(Object.keys(embedded.paths)).toEqual(
      expect.arrayContaining(["/chat-api/v1/chat", "/chat-api/v1/conversations/{id}"]),
    );
    expect(embedded.paths["/chat-api/v1/chat"].post.operationId).toBe("chat");
    expect(embedded.components.schemas.ChatRequest.properties.message.maxLength).toBe(100);
    expect(embedded.servers).toEqual([{ url: "https://example.org" }]);
    expect((await validate(structuredClone(embedded))).valid).toBe(true);
  });
});

/**
 * The example value /docs fills in for a schema, by the rules of its reference UI: `examples[0]`,
 * `example`, `default`, the first enum value or union member, else an empty value of the type.
 */
function exampleOf(schema: any): unknown {
  if (!schema || typeof schema !== "object") return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ("example" in schema) return schema.example;
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("const" in schema) return schema.const;
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return exampleOf(union[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object")
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, exampleOf(v)]));
  if (type === "array") return [exampleOf(schema.items)];
  if (type === "integer" || type === "number") return schema.minimum ?? 0;
  if (type === "boolean") return true;
  if (type === "null") return null;
  return "";
}

describe("/docs examples", () => {
  test("every operation's example request, as /docs fills it in, is a valid request (never 400)", async () => {
    const checked: string[] = [];
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith("/v1/")) continue;
      for (const [method, op] of Object.entries<any>(ops)) {
        const params: any[] = op.parameters ?? [];
        // A parameter with a stated example (or required) is filled in; optional ones without stay empty.
        const filled = params.filter((p) => p.required || p.example !== undefined || exampleOf(p.schema) !== "");
        const value = (p: any) => String(p.example ?? exampleOf(p.schema));
        let url = path;
        const query = new URLSearchParams();
        const headers: Record<string, string> = {};
        for (const p of filled) {
          if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(value(p)));
          else if (p.in === "query") query.set(p.name, value(p));
          else if (p.in === "header") headers[p.name] = value(p);
        }
        const schema = op.requestBody?.content?.["application/json"]?.schema;
        const json = schema ? exampleOf(schema) : undefined;
        const reply = await h.call(method.toUpperCase(), `${url}${query.size ? `?${query}` : ""}`, {
          key: admin,
          json,
          headers,
        });
        // 404: the example ids name no resource of this key; 201 created; 409 the example name is
        // already taken (a second run on one store); 403: an admin route asked with a chat key —
        // valid requests all the same.
        const valid = [200, 201, 204, 403, 404, 409].includes(reply.status);
        expect({ op: op.operationId, valid, status: reply.status, body: reply.json }).toMatchObject({ valid: true });
        checked.push(op.operationId);
      }
    }
    expect(checked.sort()).toEqual(
      [
        "chat",
        "deleteConversation",
        "deleteFeedback",
        "getUsage",
        "listFeedback",
        "getSetupState",
        "exchangeSetupCode",
        "putFeedback",
        "getConversation",
        "listAnalyticsGaps",
        "listAnalyticsQuestions",
        "listAnalyticsTopics",
        "listConversations",
        "listMessages",
        "replyEvents",
        "stopReply",
        ...["createChatCompletion", "listModels", "retrieveModel"],
        ...["createResponse", "retrieveResponse", "deleteResponse"],
        ...[
          "addDocuments",
          "analyticsPages",
          "createKey",
          "createKnowledgeBase",
          "deleteDocument",
          "deleteKnowledgeBase",
          "downloadBackup",
          "getDocument",
          "getKey",
          "getKnowledgeBase",
          "listDocuments",
          "listKeys",
          "listKnowledgeBases",
          "listPassages",
          "revokeKey",
          "searchKnowledgeBase",
          "updateKey",
          "updateKnowledgeBase",
        ],
        ...["createSource", "deleteSource", "getSource", "listSources", "syncSource"],
        ...["createWidgetChallenge", "createWidgetSession"],
      ].sort(),
    );
  });
});

describe("real responses match the documented schemas", () => {
  test("chat, list, get, delete and errors", async () => {
    const chat = await h.call("POST", "/v1/chat", { key, json: { message: "What is a guard?" } });
    expectMatches(chat, "/v1/chat", "post");
    expectMatches(await h.call("GET", "/v1/conversations?limit=2", { key }), "/v1/conversations", "get");
    const id = chat.json.conversation_id;
    expectMatches(await h.call("GET", `/v1/conversations/${id}`, { key }), "/v1/conversations/{id}", "get");
    expectMatches(await h.call("POST", "/v1/chat", { key, json: { message: "" } }), "/v1/chat", "post");
    expectMatches(await h.call("GET", "/v1/conversations"), "/v1/conversations", "get");
    expectMatches(
      await h.call("GET", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", { key }),
      "/v1/conversations/{id}",
      "get",
    );
    expectMatches(await h.call("GET", "/v1/conversations?cursor=zz", { key }), "/v1/conversations", "get");
    const del = await h.call("DELETE", `/v1/conversations/${id}`, { key });
    expect(Object.keys(doc.paths["/v1/conversations/{id}"].delete.responses)).toContain(String(del.status));
    const limited = await h.key("enterprise", { rpm: 1, rpd: 5 });
    await h.call("GET", "/v1/conversations", { key: limited });
    expectMatches(await h.call("GET", "/v1/conversations", { key: limited }), "/v1/conversations", "get");
  });

  test("every streamed event matches the documented event schema", async () => {
    const res = await fetch(`${server.url}/v1/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How do I use a derive?", stream: true }),
    });
    const { events } = await readSse(res);
    const check = ajv.compile(doc.paths["/v1/chat"].post.responses["200"].content["text/event-stream"].schema);
    for (const e of events) expect({ ok: check(e), e, errors: check.errors }).toMatchObject({ ok: true });
    expect(events.length).toBeGreaterThan(3);
  });

  test("the reply routes: resumed events and the stop answer match their schemas", async () => {
    const chat = await h.call("POST", "/v1/chat", { key, json: { message: "What is a guard?" } });
    const base = `/v1/conversations/${chat.json.conversation_id}/messages/${chat.json.id}`;
    const res = await fetch(`${server.url}${base}/events?after=2`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const { events } = await readSse(res);
    const check = ajv.compile(
      doc.paths["/v1/conversations/{id}/messages/{message_id}/events"].get.responses["200"].content["text/event-stream"]
        .schema,
    );
    for (const e of events) expect({ ok: check(e), e, errors: check.errors }).toMatchObject({ ok: true });
    expect(events.at(-1).type).toBe("end");
    expectMatches(
      await h.call("POST", `${base}/stop`, { key }),
      "/v1/conversations/{id}/messages/{message_id}/stop",
      "post",
    );
    expectMatches(
      await h.call("POST", `/v1/conversations/${chat.json.conversation_id}/messages/msg_nope/stop`, { key }),
      "/v1/conversations/{id}/messages/{message_id}/stop",
      "post",
    );
  });
});

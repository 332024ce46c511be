/** The OpenAPI document: valid 3.1, and real responses match the schemas it states. */
import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { dereference, validate } from "@readme/openapi-parser";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expectStatus, harness, type Reply } from "./helpers/app.ts";
import { readSse } from "./helpers/sse.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const key = await h.key();
const raw = (await h.call("GET", "/v1/openapi.json")).json;
const doc: any = await dereference(structuredClone(raw));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const server = h.app.listen({ port: 0, hostname: "127.0.0.1" });
afterAll(() => server.stop());

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
    const result = await validate(structuredClone(raw));
    expect({ valid: result.valid, errors: result.valid ? [] : result.errors }).toEqual({ valid: true, errors: [] });
  });

  test("documents every route, the Bearer scheme, SSE events and rate-limit headers", () => {
    expect(Object.keys(raw.paths).sort()).toEqual([
      "/healthz",
      "/v1/chat",
      "/v1/conversations",
      "/v1/conversations/{id}",
      "/v1/conversations/{id}/messages/{message_id}/events",
      "/v1/conversations/{id}/messages/{message_id}/stop",
    ]);
    expect(Object.keys(raw.paths["/v1/conversations/{id}"]).sort()).toEqual(["delete", "get"]);
    expect(raw.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    const chat = doc.paths["/v1/chat"].post;
    expect(Object.keys(chat.responses["200"].content).sort()).toEqual(["application/json", "text/event-stream"]);
    expect(chat.requestBody.content["application/json"].schema.required).toEqual(["message"]);
    expect(Object.keys(chat.responses["429"].headers)).toContain("Retry-After");
    expect(Object.keys(chat.responses["200"].headers)).toContain("RateLimit");
  });

  test("/docs renders a reference page pointing at the document", async () => {
    const r = await h.call("GET", "/docs");
    expectStatus(r, 200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain("/v1/openapi.json");
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
    expectMatches(await h.call("GET", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", { key }), "/v1/conversations/{id}", "get");
    expectMatches(await h.call("GET", "/v1/conversations?cursor=zz", { key }), "/v1/conversations", "get");
    const del = await h.call("DELETE", `/v1/conversations/${id}`, { key });
    expect(Object.keys(doc.paths["/v1/conversations/{id}"].delete.responses)).toContain(String(del.status));
    const limited = await h.key("enterprise", { rpm: 1, rpd: 5 });
    await h.call("GET", "/v1/conversations", { key: limited });
    expectMatches(await h.call("GET", "/v1/conversations", { key: limited }), "/v1/conversations", "get");
  });

  test("every streamed event matches the documented event schema", async () => {
    const res = await fetch(`http://127.0.0.1:${server.server!.port}/v1/chat`, {
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
    const res = await fetch(`http://127.0.0.1:${server.server!.port}${base}/events?after=2`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const { events } = await readSse(res);
    const check = ajv.compile(doc.paths["/v1/conversations/{id}/messages/{message_id}/events"].get.responses["200"].content["text/event-stream"].schema);
    for (const e of events) expect({ ok: check(e), e, errors: check.errors }).toMatchObject({ ok: true });
    expect(events.at(-1).type).toBe("end");
    expectMatches(await h.call("POST", `${base}/stop`, { key }), "/v1/conversations/{id}/messages/{message_id}/stop", "post");
    expectMatches(await h.call("POST", `/v1/conversations/${chat.json.conversation_id}/messages/msg_nope/stop`, { key }), "/v1/conversations/{id}/messages/{message_id}/stop", "post");
  });
});

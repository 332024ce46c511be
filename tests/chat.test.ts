/** POST /v1/chat as JSON: happy path, validation, ownership. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { scriptedAgent } from "./helpers/agents.ts";
import { expectError, expectStatus, harness } from "./helpers/app.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const key = await h.key();

describe("POST /v1/chat (JSON)", () => {
  test("starts a conversation and answers from the knowledge base", async () => {
    const r = await h.call("POST", "/v1/chat", {
      key,
      json: { message: "How do I validate a request body?" },
    });
    expectStatus(r, 200);
    expect(r.json.id).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(r.json.conversation_id).toMatch(/^conv_[0-9a-z]{26}$/);
    expect(r.json.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.json.content.length).toBeGreaterThan(50);
    expect(r.json.certainty).toBe("answered");
    expect(Object.keys(r.json).sort()).toEqual([
      "certainty",
      "content",
      "conversation_id",
      "created_at",
      "id",
      "sources",
      "status",
      "usage",
    ]);
    expect(r.json.status).toBe("completed");
    expect(r.json.usage).toBeNull(); // the retrieval agent reports no token counts

    const conv = await h.call("GET", `/v1/conversations/${r.json.conversation_id}`, { key });
    expectStatus(conv, 200);
    expect(conv.json.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(conv.json.messages[0]?.content).toBe("How do I validate a request body?");
    expect(conv.json.messages[1]).toMatchObject({ id: r.json.id, content: r.json.content, status: "completed" });
    expect(conv.json.messages[1]?.sources.length).toBeGreaterThan(0);
    // The JSON reply carries the same sources as the stored message (and the stream's `sources` event).
    expect(r.json.sources).toEqual(conv.json.messages[1]!.sources);
    expect(conv.json.title).toBe("How do I validate a request body?");
  });

  test("continues an existing conversation", async () => {
    const first = await h.call("POST", "/v1/chat", {
      key,
      json: { message: "What is a plugin?", stream: false },
    });
    const second = await h.call("POST", "/v1/chat", {
      key,
      json: { message: "How do I add a prefix to it?", conversation_id: first.json.conversation_id },
    });
    expectStatus(second, 200);
    expect(second.json.conversation_id).toBe(first.json.conversation_id);
    const conv = await h.call("GET", `/v1/conversations/${first.json.conversation_id}`, { key });
    expect(conv.json.messages).toHaveLength(4);
  });

  test("null conversation_id starts a new conversation", async () => {
    const r = await h.call("POST", "/v1/chat", { key, json: { message: "hello", conversation_id: null } });
    expectStatus(r, 200);
  });

  test("another key's conversation, an unknown id and a malformed id are all 404", async () => {
    const mine = await h.call("POST", "/v1/chat", { key, json: { message: "hello there" } });
    const other = await h.key();
    for (const id of [mine.json.conversation_id, "conv_01jd5x8r7mf6sb1b2k3n4p5q6r", "nope", "conv_' OR 1=1 --"]) {
      const r = await h.call("POST", "/v1/chat", {
        key: other,
        json: { message: "hi", conversation_id: id },
      });
      expectError(r, 404, "not_found");
      expect(r.json.error.param).toBe("conversation_id");
    }
    // Nothing was written for the refused requests.
    const list = await h.call("GET", "/v1/conversations", { key: other });
    expect(list.json.data).toEqual([]);
  });

  test.each([
    ["missing message", {}, "message"],
    ["empty message", { message: "" }, "message"],
    ["white space only", { message: "  \n\t " }, "message"],
    ["NUL character (PostgreSQL text cannot hold it)", { message: "a\u0000b" }, "message"],
    ["message not a string", { message: 42 }, "message"],
    ["message too long", { message: "x".repeat(32_001) }, "message"],
    ["stream not a boolean", { message: "hi", stream: "yes" }, "stream"],
    ["conversation_id not a string", { message: "hi", conversation_id: 7 }, "conversation_id"],
  ])("%s → 400 naming the field", async (_n, json, param) => {
    const r = await h.call("POST", "/v1/chat", { key, json });
    expectError(r, 400, "invalid_request");
    expect(r.json.error.param).toBe(param);
  });

  test("a body that is not an object → 400", async () => {
    for (const json of [[1, 2], "text", null, 5]) {
      expectError(await h.call("POST", "/v1/chat", { key, json }), 400, "invalid_request");
    }
  });

  test("exactly the maximum length is accepted", async () => {
    expectStatus(await h.call("POST", "/v1/chat", { key, json: { message: "y".repeat(32_000) } }), 200);
  });

  test("malformed JSON → 400 invalid_json; empty body → 400", async () => {
    const headers = { "content-type": "application/json" };
    expectError(await h.call("POST", "/v1/chat", { key, body: '{"message": "hi"', headers }), 400, "invalid_json");
    expectError(await h.call("POST", "/v1/chat", { key, body: "", headers }), 400, "invalid_request");
    expectError(await h.call("POST", "/v1/chat", { key }), 400, "invalid_request");
    const bad = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expectError(await h.call("POST", "/v1/chat", { key, body: bad, headers }), 400, "invalid_json");
  });

  test("non-JSON content type → 415", async () => {
    const r = await h.call("POST", "/v1/chat", {
      key,
      body: "message=hi",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectError(r, 415, "unsupported_media_type");
    const r2 = await h.call("POST", "/v1/chat", {
      key,
      body: '{"message":"hi"}',
      headers: { "content-type": "text/plain" },
    });
    expectError(r2, 415, "unsupported_media_type");
    const ok = await h.call("POST", "/v1/chat", {
      key,
      body: '{"message":"hi"}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expectStatus(ok, 200);
  });

  test("a body over the byte limit → 413", async () => {
    const big = JSON.stringify({ message: "z".repeat(300_000) });
    expectError(
      await h.call("POST", "/v1/chat", { key, body: big, headers: { "content-type": "application/json" } }),
      413,
      "payload_too_large",
    );
  });

  test("an agent that fails → 500 generation_failed, and the failure is stored", async () => {
    const failing = await harness({ agent: scriptedAgent(["a", " b", " c"], { failAfter: 2 }) });
    const k = await failing.key();
    const r = await failing.call("POST", "/v1/chat", { key: k, json: { message: "break please" } });
    expectError(r, 500, "generation_failed");
    const list = await failing.call("GET", "/v1/conversations", { key: k });
    const conv = await failing.call("GET", `/v1/conversations/${list.json.data[0]!.id}`, { key: k });
    expect(conv.json.messages[1]).toMatchObject({ role: "assistant", status: "failed", content: "a b" });
  });

  test("the conversation, the user message and the reply are created by one statement: none without the others", async () => {
    const k = await h.key();
    const idem = `atomic-${crypto.randomUUID()}`;
    // Fail only the last part of the reply-creating statement (this request's Idempotency-Key link).
    const fn = `parley_test_fail_${idem.replace(/-/g, "_")}`;
    await h.store.db.execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception 'cannot link' using errcode = '25006'; end $$`),
    );
    await h.store.db.execute(
      sql.raw(`create trigger ${fn} before update on idempotency_keys
      for each row when (new.idem_key = '${idem}' and new.message_id is not null) execute function ${fn}()`),
    );
    try {
      const r = await h.call("POST", "/v1/chat", {
        key: k,
        json: { message: "a turn that cannot be stored" },
        headers: { "idempotency-key": idem },
      });
      expect(r.status).toBeGreaterThanOrEqual(500);
    } finally {
      await h.store.db.execute(sql.raw(`drop trigger ${fn} on idempotency_keys`));
      await h.store.db.execute(sql.raw(`drop function ${fn}()`));
    }
    // Nothing of the turn was stored: no conversation holding a user message without a reply.
    const list = await h.call("GET", "/v1/conversations", { key: k });
    expectStatus(list, 200);
    expect(list.json.data).toEqual([]);
  });
});

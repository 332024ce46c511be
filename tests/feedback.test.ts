/** Feedback on replies: PUT/DELETE …/feedback, history carries it, GET /v1/feedback for admins. */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { listFeedback } from "../src/feedback/service.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { expectError, expectStatus, type Harness, harness, keyIdOf } from "./helpers/app.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);
// The shared store (migrated, corpus loaded) once, before the first timed test.
beforeAll(() => testStore().then(() => {}), 120_000);

const agent = scriptedAgent(["The", " answer"], { sources: ["https://docs.example/a"] });

async function turn(h: Harness, key: string, message: string, conversation_id?: string) {
  const res = await h.call("POST", "/v1/chat", { key, json: { message, conversation_id } });
  expectStatus(res, 200);
  return { cid: res.json.conversation_id, mid: res.json.id };
}

const path = (cid: string, mid: string) => `/v1/conversations/${cid}/messages/${mid}/feedback` as const;

describe("PUT/DELETE …/feedback", () => {
  test("one rating per reply, replaced by a new one, carried by the history, removed by DELETE", async () => {
    const h = await harness({ agent });
    const key = await h.key();
    const { cid, mid } = await turn(h, key, "how do I sign a request?");
    const put = await h.call("PUT", path(cid, mid), {
      key,
      json: { rating: "down", comment: "missing the header name" },
    });
    expectStatus(put, 200);
    expect(put.json).toMatchObject({ rating: "down", comment: "missing the header name" });
    expect(Date.parse(put.json.updated_at)).toBeGreaterThan(0);
    const again = await h.call("PUT", path(cid, mid), { key, json: { rating: "up" } });
    expect(again.json).toMatchObject({ rating: "up", comment: null });
    const conv = await h.call("GET", `/v1/conversations/${cid}`, { key });
    const [user, reply] = conv.json.messages;
    expect(user?.feedback).toBeNull();
    expect(reply?.feedback).toEqual(again.json);
    const page = await h.call("GET", `/v1/conversations/${cid}/messages`, { key });
    expect(page.json.data[1]?.feedback).toEqual(again.json);
    expectStatus(await h.call("DELETE", path(cid, mid), { key }), 204);
    expectStatus(await h.call("DELETE", path(cid, mid), { key }), 204); // idempotent
    const after = await h.call("GET", `/v1/conversations/${cid}`, { key });
    expect(after.json.messages[1]?.feedback).toBeNull();
  });

  test("a user message is 400, a foreign or unknown reply the same 404, a bad body 400 with param", async () => {
    const h = await harness({ agent });
    const key = await h.key();
    const other = await h.key();
    const { cid, mid } = await turn(h, key, "hello");
    const conv = await h.call("GET", `/v1/conversations/${cid}`, { key });
    const userMid = conv.json.messages[0]!.id;
    expectError(await h.call("PUT", path(cid, userMid), { key, json: { rating: "up" } }), 400, "invalid_request");
    const foreign = await h.call("PUT", path(cid, mid), { key: other, json: { rating: "up" } });
    expectError(foreign, 404, "not_found");
    const unknown = await h.call("PUT", path(cid, "msg_01jd5x8r7mf6sb1b2k3n4p5q6r"), { key, json: { rating: "up" } });
    expectError(unknown, 404, "not_found");
    expect(unknown.json.error.message.replace(/'[^']*'/, "")).toBe(foreign.json.error.message.replace(/'[^']*'/, ""));
    expectError(await h.call("PUT", path("nope", "nope"), { key, json: { rating: "up" } }), 404, "not_found");
    expectError(await h.call("DELETE", path(cid, mid), { key: other }), 404, "not_found");
    // Another conversation of the same key does not hold this reply either.
    const second = await turn(h, key, "another");
    expectError(await h.call("PUT", path(second.cid, mid), { key, json: { rating: "up" } }), 404, "not_found");
    for (const json of [
      { rating: "meh" },
      {},
      { rating: "up", comment: "x".repeat(2001) },
      { rating: "up", comment: 5 },
    ]) {
      const bad = await h.call("PUT", path(cid, mid), { key, json });
      expectError(bad, 400, "invalid_request");
      expect(bad.json.error.param).toBeOneOf(["rating", "comment"]);
    }
    expectStatus(await h.call("PUT", path(cid, mid), { key, json: { rating: "up", comment: "x".repeat(2000) } }), 200);
    expectError(await h.call("PUT", path(cid, mid), { json: { rating: "up" } }), 401, "unauthorized");
  });

  test("a running reply is 409 reply_in_progress", async () => {
    const h = await harness({ agent: scriptedAgent(["slow"], { silenceMs: 1_500 }) });
    const key = await h.key();
    const res = await fetchStart(h, key);
    expectError(await h.call("PUT", path(res.cid, res.mid), { key, json: { rating: "up" } }), 409, "reply_in_progress");
  });
});

/** Starts a streamed reply and returns its ids from the `start` event, leaving it running. */
async function fetchStart(h: Harness, key: string) {
  const res = await h.app.handle(
    new Request("http://localhost/v1/chat", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "hi", stream: true }),
    }),
  );
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes("\n\n")) text += new TextDecoder().decode((await reader.read()).value);
  void reader.cancel();
  const start = JSON.parse(
    text
      .split("\n")
      .find((l) => l.startsWith("data:"))!
      .slice(5),
  );
  return { cid: start.conversation_id as string, mid: start.message_id as string };
}

describe("GET /v1/feedback", () => {
  test("chat keys get 403 permission_denied; admin keys (role admin) get the list", async () => {
    const h = await harness({ agent });
    const key = await h.key();
    expectError(await h.call("GET", "/v1/feedback?rating=down", { key }), 403, "permission_denied");
    expectStatus(await h.call("GET", "/v1/feedback?rating=down", { key: await h.admin() }), 200);
  });

  test("items carry question, answer and sources; filters and keyset paging", async () => {
    const h = await harness({ agent });
    const key = await h.key();
    const keyId = await keyIdOf(h.store, key);
    const rated: string[] = [];
    let cid: string | undefined;
    for (let i = 0; i < 5; i++) {
      const t = await turn(h, key, `question ${i}`, cid);
      cid = t.cid;
      await h.call("PUT", path(t.cid, t.mid), { key, json: { rating: i % 2 ? "up" : "down", comment: `c${i}` } });
      rated.push(t.mid);
    }
    const down = await listFeedback(h.store.db, { rating: "down", keyId }, 10, null);
    expect(down.map((r) => r.message_id)).toEqual([rated[4]!, rated[2]!, rated[0]!]);
    expect(down[0]).toMatchObject({ question: "question 4", answer: "The answer", comment: "c4" });
    expect(down[0]!.sources).toEqual(["https://docs.example/a"]);
    expect(await listFeedback(h.store.db, { keyId, from: Date.now() - 60_000 }, 10, null)).toHaveLength(5);
    expect(await listFeedback(h.store.db, { keyId, from: Date.now() + 60_000 }, 10, null)).toHaveLength(0);
    expect(await listFeedback(h.store.db, { keyId, to: Date.now() - 60_000 }, 10, null)).toHaveLength(0);
    // Keyset paging: two pages of two, then one, newest first, no overlap.
    const p1 = await listFeedback(h.store.db, { keyId }, 2, null);
    const last = p1[1]!;
    const p2 = await listFeedback(h.store.db, { keyId }, 2, {
      createdAt: Number(last.updated_ms),
      id: last.message_id,
    });
    expect([...p1.slice(0, 2), ...p2.slice(0, 2)].map((r) => r.message_id)).toEqual(rated.slice(1).reverse());
  });
});

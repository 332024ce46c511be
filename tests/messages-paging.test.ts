/** GET /v1/conversations/:id is bounded; older messages are paged by signed cursor via /messages. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Agent, ChatTurn } from "../src/agent/types.ts";
import { MESSAGES_CAP } from "../src/conversations/service.ts";
import { messages } from "../src/db/schema.ts";
import { newId } from "../src/primitives.ts";
import { expectError, expectStatus, harness, keyIdOf } from "./helpers/app.ts";
import { createConversation } from "./helpers/conversations.ts";

setDefaultTimeout(30_000);

const h = await harness();

/** A conversation with n messages; every fourth shares its timestamp with the one before. */
/**
 * A conversation of `n` messages under `key` in `hr`'s store, written straight to the table;
 * message i at `at(i)` seconds (default: four messages per second, so timestamps tie). Returns
 * the ids in the API's chronological order, (created_at, id).
 */
async function seed(
  key: string,
  n: number,
  { hr = h, at = (i: number) => i - Math.floor(i / 4) }: { hr?: typeof h; at?: (i: number) => number } = {},
): Promise<{ convId: string; ids: string[] }> {
  const keyId = await keyIdOf(hr.store, key);
  const base = Date.UTC(2026, 0, 1);
  const conv = await createConversation(hr.store.db, keyId, "long", new Date(base));
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId("msg"),
    conversationId: conv.id,
    role: (i % 2 ? "assistant" : "user") as "user" | "assistant",
    content: `m${i}`,
    sources: [],
    status: "completed" as const,
    createdAt: new Date(base + at(i) * 1000),
  }));
  await hr.store.db.insert(messages).values(rows);
  const ids = rows
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    .map((r) => r.id);
  return { convId: conv.id, ids };
}

describe("a long conversation", () => {
  test("the detail returns the most recent 100 messages, oldest first, and pages back through the rest", async () => {
    const key = await h.key();
    const { convId, ids } = await seed(key, 250);
    const detail = await h.call("GET", `/v1/conversations/${convId}`, { key });
    expectStatus(detail, 200);
    expect(MESSAGES_CAP).toBe(100);
    expect(detail.json.messages.map((m) => m.id)).toEqual(ids.slice(-100));
    expect(detail.json.pagination.has_more).toBe(true);
    expect(typeof detail.json.pagination.next_cursor).toBe("string");

    // Walk back from the detail's cursor with small pages: every older message once, in order.
    const seen: string[][] = [detail.json.messages.map((m) => m.id)];
    let cursor: string | null = detail.json.pagination.next_cursor;
    while (cursor) {
      const r = await h.call("GET", `/v1/conversations/${convId}/messages?limit=40&cursor=${cursor}`, { key });
      expectStatus(r, 200);
      expect(r.json.data.length).toBeLessThanOrEqual(40);
      seen.unshift(r.json.data.map((m) => m.id));
      cursor = r.json.pagination.next_cursor;
      expect(r.json.pagination.has_more).toBe(cursor !== null);
    }
    expect(seen.flat()).toEqual(ids);

    // Without a cursor, /messages is the detail's page; limit bounds it.
    const first = await h.call("GET", `/v1/conversations/${convId}/messages?limit=5`, { key });
    expect(first.json.data.map((m) => m.id)).toEqual(ids.slice(-5));
    expect(Object.keys(first.json.data[0] ?? {}).sort()).toEqual([
      "content",
      "created_at",
      "feedback",
      "id",
      "role",
      "sources",
      "status",
      "usage",
    ]);
  });

  test("a short conversation: everything, has_more false, next_cursor null", async () => {
    const key = await h.key();
    const { convId, ids } = await seed(key, 3);
    const r = await h.call("GET", `/v1/conversations/${convId}/messages`, { key });
    expectStatus(r, 200);
    expect(r.json).toMatchObject({ pagination: { has_more: false, next_cursor: null } });
    expect(r.json.data.map((m) => m.id)).toEqual(ids);
  });

  test("bad limits, foreign and tampered cursors are 400; another key's conversation is 404", async () => {
    const key = await h.key();
    const { convId } = await seed(key, 120);
    const { convId: otherConv } = await seed(key, 120);
    const cursorOf = async (id: string) =>
      (await h.call("GET", `/v1/conversations/${id}`, { key })).json.pagination.next_cursor as string;
    const cursor = await cursorOf(convId);
    for (const limit of ["0", "101", "abc", "1e1", "5&limit=6"]) {
      expectError(
        await h.call("GET", `/v1/conversations/${convId}/messages?limit=${limit}`, { key }),
        400,
        "invalid_request",
      );
    }
    // Another conversation's cursor, a list cursor, and an edited one.
    expectError(
      await h.call("GET", `/v1/conversations/${otherConv}/messages?cursor=${cursor}`, { key }),
      400,
      "invalid_cursor",
    );
    await seedList(key);
    const listCursor = (await h.call("GET", "/v1/conversations?limit=1", { key })).json.pagination.next_cursor;
    expectError(
      await h.call("GET", `/v1/conversations/${convId}/messages?cursor=${listCursor}`, { key }),
      400,
      "invalid_cursor",
    );
    const flipped = cursor.slice(0, 10) + (cursor[10] === "A" ? "B" : "A") + cursor.slice(11);
    expectError(
      await h.call("GET", `/v1/conversations/${convId}/messages?cursor=${flipped}`, { key }),
      400,
      "invalid_cursor",
    );
    // Another key sees nothing, cursor or not.
    const stranger = await h.key();
    expectError(await h.call("GET", `/v1/conversations/${convId}/messages`, { key: stranger }), 404, "not_found");
    expectError(
      await h.call("GET", `/v1/conversations/${convId}/messages?cursor=${cursor}`, { key: stranger }),
      404,
      "not_found",
    );
  });
});

describe("continuing a long conversation", () => {
  test("the agent is given the most recent 100 messages as history, not all of them", async () => {
    const seen: ChatTurn[][] = [];
    const recording: Agent = {
      async *respond({ history }) {
        seen.push(history);
        yield { type: "token", content: "ok" };
        yield { type: "sources", sources: [] };
      },
    };
    const hr = await harness({ agent: recording, store: h.store });
    const key = await hr.key();
    const { convId } = await seed(key, 250, { hr, at: (i) => i });
    expectStatus(
      await hr.call("POST", "/v1/chat", { key, json: { message: "and now?", conversation_id: convId } }),
      200,
    );
    expect(seen).toHaveLength(1);
    // The 100 most recent before this turn's message: m150…m249 (the new message is not history).
    expect(seen[0]!.length).toBeLessThanOrEqual(100);
    expect(seen[0]!.at(-1)?.content).toBe("m249");
    expect(seen[0]!.map((t) => t.content)).not.toContain("m0");
  });
});

/** Enough conversations for the key that its list has a next page. */
async function seedList(key: string) {
  const keyId = await keyIdOf(h.store, key);
  for (let i = 0; i < 3; i++)
    await createConversation(h.store.db, keyId, `c${i}`, new Date(Date.UTC(2025, 0, 1, 0, 0, i)));
}

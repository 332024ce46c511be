/** GET/DELETE /v1/conversations: listing, keyset pagination under change, detail, ownership. */

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { ConversationList, Message } from "../src/contract/index.ts";
import { rowsOf } from "../src/db/rows.ts";
import { encodeCursor } from "../src/http/cursor.ts";
import { DEFAULT_KB_ID } from "../src/knowledge/index.ts";
import { expectError, expectStatus, harness, keyIdOf } from "./helpers/app.ts";
import { addMessage, createConversation } from "./helpers/conversations.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();

/** Creates n conversations for the key; every third shares its timestamp with the previous one. */
async function seed(key: string, n: number, base = Date.UTC(2026, 0, 1)): Promise<string[]> {
  const keyId = await keyIdOf(h.store, key);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(base + Math.floor(i - i / 3) * 1000);
    ids.push((await createConversation(h.store.db, keyId, `c${i}`, at)).id);
  }
  return ids;
}

async function page(key: string, query: string) {
  const r = await h.call<ConversationList>("GET", `/v1/conversations${query}`, { key });
  expectStatus(r, 200);
  return r.json;
}

describe("GET /v1/conversations", () => {
  test("empty list for a new key", async () => {
    const key = await h.key();
    expect(await page(key, "")).toEqual({ data: [], pagination: { has_more: false, next_cursor: null } });
  });

  test("default page size 20, newest first, shape of items", async () => {
    const key = await h.key();
    await seed(key, 25);
    const p = await page(key, "");
    expect(p.data).toHaveLength(20);
    expect(p.pagination.has_more).toBe(true);
    expect(typeof p.pagination.next_cursor).toBe("string");
    expect(Object.keys(p.data[0]!).sort()).toEqual(["created_at", "id", "knowledge_base_id", "title", "updated_at"]);
    const order = p.data.map((c) => [c.created_at, c.id].join("|"));
    expect(order).toEqual([...order].sort().reverse());
  });

  test("limit bounds: 1 and 100 accepted, anything else is 400 naming limit", async () => {
    const key = await h.key();
    await seed(key, 3);
    expect((await page(key, "?limit=1")).data).toHaveLength(1);
    expect((await page(key, "?limit=100")).data).toHaveLength(3);
    for (const bad of ["0", "101", "-1", "1.5", "abc", "", "1e2", "%00", "0x10", "+5", "%205"]) {
      const r = await h.call("GET", `/v1/conversations?limit=${bad}`, { key });
      expectError(r, 400, "invalid_request");
      expect(r.json.error.param).toBe("limit");
    }
  });

  test("cursors not produced by the server are 400, never 500", async () => {
    const key = await h.key();
    const forged = [
      "abc",
      "",
      "!!!",
      btoa("not json"),
      btoa(JSON.stringify({ v: 1, t: "x", id: "conv_01jd5x8r7mf6sb1b2k3n4p5q6r" })),
      btoa(JSON.stringify({ v: 2, t: 1, id: "conv_01jd5x8r7mf6sb1b2k3n4p5q6r" })),
      btoa(JSON.stringify({ v: 1, t: 1, id: "conv_'; drop table x" })),
      btoa(JSON.stringify({ v: 1, t: 1e300, id: "conv_01jd5x8r7mf6sb1b2k3n4p5q6r" })),
      // Past 9999-12-31: a valid JS date the database cannot take.
      btoa(JSON.stringify({ v: 1, t: 253402300800000, id: "conv_01jd5x8r7mf6sb1b2k3n4p5q6r" })),
      "a".repeat(5000),
      // A position that would decode and query fine, but that the server never signed.
      b64url(new TextEncoder().encode(JSON.stringify({ v: 1, t: 1e12, id: "conv_01jd5x8r7mf6sb1b2k3n4p5q6r" }))),
    ];
    // A real cursor, tampered with: its position edited, or its tag.
    await seed(key, 3);
    const real = (await page(key, "?limit=1")).pagination.next_cursor!;
    const bytes = Uint8Array.from(atob(real.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const text = new TextDecoder().decode(bytes.slice(0, -16));
    const edited = new TextEncoder().encode(text.replace(/"t":(\d)/, (_m, d) => `"t":${(Number(d) + 1) % 10}`));
    forged.push(b64url(new Uint8Array([...edited, ...bytes.slice(-16)])));
    const flipped = bytes.slice();
    flipped[flipped.length - 1]! ^= 1;
    forged.push(b64url(flipped));
    expectStatus(await h.call("GET", `/v1/conversations?limit=1&cursor=${real}`, { key }), 200);
    for (const cursor of forged) {
      const r = await h.call("GET", `/v1/conversations?cursor=${encodeURIComponent(cursor)}`, { key });
      expectError(r, 400, "invalid_cursor");
      expect(r.json.error.param).toBe("cursor");
    }
  });

  test("paging through everything: no duplicates, no gaps, ties broken by id", async () => {
    const key = await h.key();
    const ids = await seed(key, 95);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p = await page(key, `?limit=10${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...p.data.map((c) => c.id));
      cursor = p.pagination.has_more ? p.pagination.next_cursor : null;
      if (!p.pagination.has_more) expect(p.pagination.next_cursor).toBeNull();
    } while (cursor);
    expect(seen).toHaveLength(95);
    expect(new Set(seen).size).toBe(95);
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  test("inserts and deletes between pages: every surviving original once, nothing twice", async () => {
    const key = await h.key();
    const ids = await seed(key, 60);
    const deleted = new Set<string>();
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const p = await page(key, `?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...p.data.map((c) => c.id));
      cursor = p.pagination.has_more ? p.pagination.next_cursor : null;
      // Between pages: a new conversation (newer than all), and a delete ahead and behind the cursor.
      await h.call("POST", "/v1/chat", { key, json: { message: `new ${round}` } });
      const ahead = ids[ids.length - 1 - (round * 7 + 10)];
      const behind = seen[0];
      for (const id of [ahead, behind]) {
        if (id && !deleted.has(id)) {
          expectStatus(await h.call("DELETE", `/v1/conversations/${id}`, { key }), 204);
          deleted.add(id);
        }
      }
      round++;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    const survivors = ids.filter((id) => !deleted.has(id));
    for (const id of survivors) expect(seen).toContain(id);
    for (const id of seen) expect(ids).toContain(id);
  });

  test("a cursor cannot reach another key's conversations", async () => {
    const a = await h.key();
    const b = await h.key();
    const idsA = await seed(a, 5);
    const cursor = await encodeCursor(h.store.db, {
      createdAt: Date.UTC(2030, 0, 1),
      id: "conv_7zzzzzzzzzzzzzzzzzzzzzzzzz",
    });
    const p = await page(b, `?cursor=${cursor}`);
    expect(p.data).toEqual([]);
    expect((await page(a, `?cursor=${cursor}`)).data.map((c) => c.id).sort()).toEqual([...idsA].sort());
  });
});

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

describe("GET/DELETE /v1/conversations/:id", () => {
  test("detail has messages oldest first with their fields", async () => {
    const key = await h.key();
    const r = await h.call("POST", "/v1/chat", { key, json: { message: "How do I handle errors?" } });
    const conv = await h.call("GET", `/v1/conversations/${r.json.conversation_id}`, { key });
    expectStatus(conv, 200);
    expect(Object.keys(conv.json).sort()).toEqual([
      "created_at",
      "id",
      "knowledge_base_id",
      "messages",
      "pagination",
      "title",
      "updated_at",
    ]);
    expect(conv.json.pagination).toEqual({ has_more: false, next_cursor: null });
    const [user, assistant] = conv.json.messages as [Message, Message];
    expect(Object.keys(user).sort()).toEqual([
      "content",
      "created_at",
      "feedback",
      "id",
      "role",
      "sources",
      "status",
      "usage",
    ]);
    expect(user).toMatchObject({ role: "user", sources: [], status: "completed" });
    expect(assistant.created_at >= user.created_at).toBe(true);
    expect(conv.json.updated_at >= conv.json.created_at).toBe(true);
  });

  test("DELETE takes the replies' stored events with them (drizzle/0022's trigger), and only theirs", async () => {
    const key = await h.key();
    const events = async (conversationId: string) =>
      Number(
        (
          await rowsOf<{ n: number | string }>(
            h.store.db,
            sql`select count(*) as n from message_events e join messages m on m.id = e.message_id
              where m.conversation_id = ${conversationId}`,
          )
        )[0]!.n,
      );
    const orphans = async () =>
      Number(
        (
          await rowsOf<{ n: number | string }>(
            h.store.db,
            sql`select count(*) as n from message_events e where not exists (select 1 from messages m where m.id = e.message_id)`,
          )
        )[0]!.n,
      );
    const chat = async () =>
      (await h.call("POST", "/v1/chat", { key, json: { message: "How do I handle errors?" } })).json;
    const gone = await chat();
    const kept = await chat();
    const second = await h.call("POST", "/v1/chat", {
      key,
      json: { message: "And validation?", conversation_id: gone.conversation_id },
    });
    expectStatus(second, 200);
    const before = await events(kept.conversation_id);
    expect(await events(gone.conversation_id)).toBeGreaterThan(2);
    expectStatus(await h.call("DELETE", `/v1/conversations/${gone.conversation_id}`, { key }), 204);
    expect(await orphans()).toBe(0);
    expect(await events(kept.conversation_id)).toBe(before);
  });

  test("unknown, malformed and other key's ids are 404 (no hint of existence)", async () => {
    const owner = await h.key();
    const other = await h.key();
    const r = await h.call("POST", "/v1/chat", { key: owner, json: { message: "secret stuff" } });
    const id = r.json.conversation_id;
    for (const bad of [id, "conv_01jd5x8r7mf6sb1b2k3n4p5q6r", "x", "%27%20or%201=1", "%E0%A4%A", "%zz"]) {
      expectError(await h.call("GET", `/v1/conversations/${bad}`, { key: other }), 404, "not_found");
      expectError(await h.call("DELETE", `/v1/conversations/${bad}`, { key: other }), 404, "not_found");
    }
    expectStatus(await h.call("GET", `/v1/conversations/${id}`, { key: owner }), 200);
  });

  test("an admin key reads any key's conversation (not change it): what its feedback list links to", async () => {
    const owner = await h.key();
    const admin = await h.admin();
    const r = await h.call("POST", "/v1/chat", { key: owner, json: { message: "a question for the docs team" } });
    const id = r.json.conversation_id;
    const read = await h.call("GET", `/v1/conversations/${id}`, { key: admin });
    expectStatus(read, 200);
    expect(read.json.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(read.json.knowledge_base_id).toBe(DEFAULT_KB_ID); // the one it answered from
    expectStatus(await h.call("GET", `/v1/conversations/${id}/messages`, { key: admin }), 200);
    // Its list stays its own; deleting and continuing stay the owner's.
    expect(
      (await h.call("GET", "/v1/conversations?limit=100", { key: admin })).json.data.map((c) => c.id),
    ).not.toContain(id);
    expectError(await h.call("DELETE", `/v1/conversations/${id}`, { key: admin }), 404, "not_found");
    expectError(
      await h.call("POST", "/v1/chat", { key: admin, json: { message: "more", conversation_id: id } }),
      404,
      "not_found",
    );
  });

  test("sources read back as stored, whatever characters the document URL had", async () => {
    const key = await h.key();
    const keyId = await keyIdOf(h.store, key);
    const conv = await createConversation(h.store.db, keyId, "odd urls", new Date());
    // What a custom agent might report: not every source is a well-formed URI.
    const sources = ["https://a.test/über uns", "not a url", "https://a.test/%E2%9C%93"];
    await addMessage(h.store.db, {
      conversationId: conv.id,
      role: "assistant",
      content: "x",
      sources,
      status: "completed",
      createdAt: new Date(),
    });
    const r = await h.call("GET", `/v1/conversations/${conv.id}`, { key });
    expectStatus(r, 200);
    expect(r.json.messages[0]!.sources).toEqual(sources);
  });

  test("delete removes the conversation and its messages; a second delete is 404", async () => {
    const key = await h.key();
    const r = await h.call("POST", "/v1/chat", { key, json: { message: "delete me" } });
    const id = r.json.conversation_id;
    const del = await h.call("DELETE", `/v1/conversations/${id}`, { key });
    expectStatus(del, 204);
    expect(del.text).toBe("");
    expectError(await h.call("GET", `/v1/conversations/${id}`, { key }), 404, "not_found");
    expectError(await h.call("DELETE", `/v1/conversations/${id}`, { key }), 404, "not_found");
    expectError(
      await h.call("POST", "/v1/chat", { key, json: { message: "again", conversation_id: id } }),
      404,
      "not_found",
    );
  });
});

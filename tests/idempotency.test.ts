/**
 * Idempotency-Key on POST /v1/chat: racing retries on two instances store one turn; replays
 * answer the same; another body is 422; abandoned records are taken over.
 */

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { ABANDONED_MS, claim, IDEMPOTENCY_TTL_MS } from "../src/chat/idempotency.ts";
import { idempotencyKeys } from "../src/db/schema.ts";
import { keyIdOf } from "./helpers/app.ts";
import { conversation, get, post, readEvents, tokensOf, twoSlow, words } from "./helpers/instances.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

describe("Idempotency-Key", () => {
  const chatIdem = (base: string, key: string, body: unknown, idem: string) =>
    post(base, key, "/v1/chat", body, { "idempotency-key": idem });

  test("JSON: racing retries on both instances store one turn; later retries get the same answer; another body is 422", async () => {
    const { a, b, key } = await twoSlow(30, 10);
    const idem = `k-${crypto.randomUUID()}`;
    const body = { message: "once only" };
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => chatIdem(i % 2 ? a.base : b.base, key, body, idem)),
    );
    const statuses = answers.map((r) => r.status).sort();
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as any[];
    expect({ statuses, bodies }).toMatchObject({ statuses: [200, 409, 409, 409, 409, 409] });
    const conflict = answers.find((r) => r.status === 409)!;
    expect(conflict.headers.get("retry-after")).toBe("1");
    expect(bodies.find((x) => x.error)?.error.code).toBe("idempotency_in_progress");
    const winner = bodies.find((x) => x.id)!;
    const retry = await chatIdem(b.base, key, body, idem);
    expect({ status: retry.status, body: await retry.json() }).toEqual({ status: 200, body: winner });
    const list = (await (await get(a.base, key, "/v1/conversations")).json()) as any;
    expect(list.data.length).toBe(1);
    expect((await conversation(a.base, key, list.data[0].id)).messages.length).toBe(2);
    const reused = await chatIdem(a.base, key, { message: "something else" }, idem);
    expect({ status: reused.status, code: ((await reused.json()) as any).error.code }).toEqual({
      status: 422,
      code: "idempotency_key_reused",
    });
  });

  test("stream: concurrent retries on both instances all get the one run's events from the start", async () => {
    const { a, b, key } = await twoSlow(40, 10);
    const idem = `s-${crypto.randomUUID()}`;
    const streams = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        chatIdem(i % 2 ? a.base : b.base, key, { message: "stream once", stream: true }, idem).then((r) =>
          readEvents(r),
        ),
      ),
    );
    const ids = new Set(streams.map((s) => s[0]!.data.message_id));
    expect(ids.size).toBe(1);
    for (const s of streams) {
      expect(s.map((e) => e.id)).toEqual(streams[0]!.map((e) => e.id));
      expect(tokensOf(s)).toBe(words(40).join(""));
      expect(s.at(-1)!.data.type).toBe("end");
    }
    const list = (await (await get(a.base, key, "/v1/conversations")).json()) as any;
    expect(list.data.length).toBe(1);
  });

  test("an early error is replayed as it was; a bad key is 400", async () => {
    const { a, b, key } = await twoSlow(3, 0);
    const idem = "missing-conv";
    const body = { message: "hi", conversation_id: "conv_01m84ce5vsfzzshp5m40jxfxtz" };
    const first = await chatIdem(a.base, key, body, idem);
    const second = await chatIdem(b.base, key, body, idem);
    expect([first.status, second.status]).toEqual([404, 404]);
    expect(((await second.json()) as any).error.code).toBe("not_found");
    for (const bad of ["", "x".repeat(256), "caf\u00e9"]) {
      const res = await chatIdem(a.base, key, { message: "hi" }, bad).catch(() => null);
      if (res) expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
  });

  test("an Idempotency-Key whose first request died before starting a reply is taken over after a minute", async () => {
    const { a, key } = await twoSlow(1, 0);
    const keyId = await keyIdOf(a.h.store, key);
    const t0 = Date.now();
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0)).kind).toBe("first");
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + 1_000)).kind).toBe("pending");
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + ABANDONED_MS + 1)).kind).toBe("first");
    await a.h.store.db
      .update(idempotencyKeys)
      .set({ messageId: "msg_x" })
      .where(and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idemKey, "orphan")));
    // A record with a reply is never taken over before its 24 h.
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + 3_600_000)).kind).toBe("reply");
    expect((await claim(a.h.store.db, keyId, "orphan", "h", t0 + IDEMPOTENCY_TTL_MS + ABANDONED_MS + 2)).kind).toBe(
      "first",
    );
  });
});

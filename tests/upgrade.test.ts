/**
 * Upgrades and downgrades of a store. A store an earlier release wrote (tests/fixtures/releases/:
 * the data its own code left after a short session, see scripts/release-fixture.sh) is loaded at
 * that release's schema, then opened by this one: its key, conversations, feedback and usage are
 * all there, and a chat finds its documents. A store a newer release migrated is refused.
 */
import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { PARLEY_VERSION } from "../src/config/version.ts";
import type { Db } from "../src/db/client.ts";
import { appliedMigrations, migrate, NewerSchemaError, SCHEMA } from "../src/db/migrate.ts";
import { migrations } from "../src/db/migrations.gen.ts";
import { rowsOf } from "../src/db/rows.ts";
import { harness } from "./helpers/app.ts";
import { loadReleaseFixture, releaseFixtures } from "./helpers/release-fixtures.ts";
import { readSse } from "./helpers/sse.ts";
import { ownStore, pgliteImage } from "./helpers/store.ts";

setDefaultTimeout(60_000); // per file: see bunfig.toml
beforeAll(() => pgliteImage(), 300_000);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const FIXTURES = releaseFixtures();

describe("a store written by an earlier release", () => {
  test("there are fixtures of three releases, each at a migration this release knows", () => {
    expect(Object.keys(FIXTURES)).toHaveLength(3);
    for (const tag of Object.keys(FIXTURES)) expect(migrations.map((m) => m.tag)).toContain(tag);
  });

  for (const [tag, want] of Object.entries(FIXTURES)) {
    test(`${tag} (written at ${want.commit.slice(0, 7)}): migrated, its key, conversations, feedback and usage carry over and chat finds its documents`, async () => {
      // The schema that release left, its data, then this release's migrations.
      const upTo = migrations.findIndex((m) => m.tag === tag) + 1;
      const own = await ownStore({ upTo });
      const { store } = own;
      cleanups.push(() => own.drop());
      expect(await appliedMigrations(store.db)).toHaveLength(upTo);
      expect(await loadReleaseFixture(store, tag)).toBeGreaterThan(20);
      await migrate(store);
      expect((await appliedMigrations(store.db)).map((m) => m.hash)).toEqual(migrations.map((m) => m.hash));
      // The search statistics the dump left out were rebuilt (by the triggers on chunks, or by 0024).
      // Their size in words too (0030): the passages that release wrote count their length.
      const [stats] = await rowsOf<{ chunks: number; counted: number; words: number; sized: number }>(
        store.db,
        sql`select (select count(*) from chunks)::int as chunks,
          (select coalesce(sum(passages), 0) from knowledge_base_stats)::int as counted,
          (select coalesce(sum(coalesce(words, len)), 0) from chunks)::int as words,
          (select coalesce(sum(total_words), 0) from knowledge_base_stats)::int as sized`,
      );
      expect(stats!.chunks).toBeGreaterThan(10);
      expect(stats!.counted).toBe(stats!.chunks);
      expect(stats!.sized).toBe(stats!.words);
      expect(stats!.sized).toBeGreaterThan(0);

      const h = await harness({ store });
      cleanups.push(() => h.app.parley.close());
      const key = want.key;

      // Usage first: every request below counts on today's row. The release's own figures for
      // its day, plus this request when that day is today.
      if (want.usage) {
        const { date, requests, chat_turns } = want.usage;
        const today = new Date().toISOString().slice(0, 10);
        const usage = await h.call("GET", `/v1/usage?from=${date}&to=${date}`, { key });
        expect(usage.status, usage.text).toBe(200);
        const totals = usage.json.data[0]!.totals;
        expect({ requests: totals.requests, chat_turns: totals.chat_turns }).toEqual({
          requests: requests + (date === today ? 1 : 0),
          chat_turns,
        });
      }

      // The key authenticates; the conversations are listed with the same ids, in the same order.
      const list = await h.call("GET", "/v1/conversations", { key });
      expect(list.status, list.text).toBe(200);
      expect(list.json.data.map((c) => c.id)).toEqual(want.conversations);

      // The conversation reads back as that release showed it, feedback included.
      const path = `/v1/conversations/${want.conversation.id}` as const;
      const detail = await h.call("GET", path, { key });
      expect(detail.status, detail.text).toBe(200);
      expect(detail.json.title).toBe(want.conversation.title);
      const shown = detail.json.messages.map((m) => ({
        id: m.id,
        role: m.role,
        content: m.content,
        sources: m.sources,
        feedback: m.feedback && { rating: m.feedback.rating, comment: m.feedback.comment },
      }));
      expect(shown).toEqual(want.conversation.messages);
      expect(detail.json.messages.map((m) => m.status)).toEqual(shown.map(() => "completed"));

      // A new question: the search finds the fixture's documents (triggers rebuilt their statistics).
      const asked = await h.call("POST", "/v1/chat", { key, json: { message: want.ask.question } });
      expect(asked.status, asked.text).toBe(200);
      expect(asked.json.sources).toContain(want.ask.cites);
      expect(asked.json.content).toContain(want.ask.title);

      // A follow-up in the old conversation, streamed: it ends completed, after the old messages.
      const res = await h.app.handle(
        new Request("http://localhost/v1/chat", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            message: "How do I find a puncture?",
            conversation_id: want.conversation.id,
            stream: true,
          }),
        }),
      );
      expect(res.status).toBe(200);
      const { events } = await readSse(res);
      expect(events.at(-1)).toMatchObject({ type: "end", status: "completed" });
      expect(events.find((e) => e.type === "sources")?.sources).toContain("https://brindle.example/tubes");
      const after = await h.call("GET", path, { key });
      expect(after.json.messages.map((m) => m.id).slice(0, shown.length)).toEqual(shown.map((m) => m.id));
      expect(after.json.messages).toHaveLength(shown.length + 2);
      const again = await h.call("GET", "/v1/conversations", { key });
      expect(again.json.data.map((c) => c.id)).toContain(asked.json.conversation_id);
      expect(again.json.data).toHaveLength(want.conversations.length + 1);
    });
  }
});

/** What a refused migrate must leave alone: the migrations applied and the instance's marks. */
async function state(db: Db) {
  const marks = await rowsOf<{ name: string; value: string }>(
    db,
    sql`select name, value from instance_secrets order by name`,
  );
  return { applied: await appliedMigrations(db), marks };
}

describe("a store a newer release migrated", () => {
  test("is refused with NewerSchemaError naming the releases, this one and its last migration; nothing changes", async () => {
    const own = await ownStore();
    const { store } = own;
    cleanups.push(() => own.drop());
    // As a release 9.9.9 would leave it: one migration more, and only its own mark.
    const future = migrations.at(-1)!.folderMillis + 86_400_000;
    await store.db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-parley-9.9.9', ${future})`,
    );
    await store.db.execute(sql`delete from instance_secrets where name like 'opened_by:%'`);
    await store.db.execute(
      sql`insert into instance_secrets (name, value) values ('opened_by:9.9.9', ${new Date().toISOString()})`,
    );
    const before = await state(store.db);

    const error = await migrate(store).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NewerSchemaError);
    const message = (error as Error).message;
    expect(message).toContain(`${migrations.length + 1} migrations applied (opened by Parley 9.9.9)`);
    expect(message).toContain(`Parley ${PARLEY_VERSION} knows ${migrations.length} (up to ${SCHEMA})`);
    expect(message).toContain("Downgrades are not supported");
    expect(await state(store.db)).toEqual(before);
    // Asking for fewer migrations does not get past it either.
    await expect(migrate(store, { upTo: 1 })).rejects.toBeInstanceOf(NewerSchemaError);
    expect(await state(store.db)).toEqual(before);
  });
});

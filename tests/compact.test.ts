/**
 * Compaction of a finished reply's events (src/replies/compact.ts): after
 * REPLY_EVENTS_RETENTION an ended reply keeps its text, its non-token events and one offset per
 * token event. A resume from any id must still give exactly the text the client lacks, then the
 * same sources and terminal events, with ids that go on where the client's left off.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createNotifier } from "../src/replies/notify.ts";
import { createReplyStore, rowsOf } from "../src/replies/statements.ts";
import { scriptedAgent } from "./helpers/agents.ts";
import { harness, listen } from "./helpers/app.ts";
import { eventsPath, eventually, get, type IdEvent, post, readEvents, tokensOf } from "./helpers/instances.ts";
import { growingSources } from "./helpers/sse.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

// Characters of every width: offsets count characters, so a surrogate pair must not be split.
const TOKENS = Array.from({ length: 40 }, (_, i) => [" é", "😀", " w", "中文", "\n", `${i}`][i % 6]!);
// A reply citing as it goes: a growing `sources` event before each of tokens 3, 13 and 23, which cite.
const SOURCES = ["https://example.com/1", "https://example.com/2", "https://example.com/3"];
const CITING = TOKENS.map((t, i) => (i % 10 === 3 && i < 30 ? ` [${(i - 3) / 10 + 1}]` : t));
const GROWING = { 3: SOURCES.slice(0, 1), 13: SOURCES.slice(0, 2), 23: SOURCES };
const storedEvents = async (db: any, id: string) =>
  Number(
    (await rowsOf<{ n: number }>(db, sql`select count(*) as n from message_events where message_id = ${id}`))[0]!.n,
  );
const compacted = async (db: any, id: string) =>
  (await rowsOf<{ c: boolean }>(db, sql`select token_offsets is not null as c from messages where id = ${id}`))[0]!.c;

/**
 * Compacts every due reply: one call takes a bounded number of batches, and the run's shared
 * store holds the other files' replies too (older, so first in line).
 */
async function compactAll(store: ReturnType<typeof createReplyStore>, cutoff: number) {
  let replies = 0;
  for (;;) {
    const done = await store.compact(cutoff);
    if (done.replies === 0) return { replies };
    replies += done.replies;
  }
}

async function setup() {
  const h = await harness({ agent: scriptedAgent(TOKENS, { sources: ["https://example.com/s"] }) });
  const failing = await harness({ agent: scriptedAgent(TOKENS, { failAfter: 25 }), store: h.store });
  // Says its first token, then waits for the test to `release` it: certainly running until then.
  const gate = Promise.withResolvers<void>();
  const slow = await harness({
    agent: scriptedAgent(TOKENS, { gate: { before: 1, open: gate.promise } }),
    store: h.store,
  });
  const citing = await harness({
    agent: scriptedAgent(CITING, { growing: GROWING, sources: SOURCES }),
    store: h.store,
  });
  const store = createReplyStore(h.store.db, createNotifier(null));
  const urls = { failing: listen(failing.app).url, slow: listen(slow.app).url, citing: listen(citing.app).url };
  return { h, store, base: listen(h.app).url, ...urls, release: gate.resolve };
}

/** Checks a resume after `after` of the compacted reply against the original events `all`. */
function expectResume(all: IdEvent[], after: number, got: IdEvent[]) {
  const lacking = all.filter((e) => e.id > after);
  const context = JSON.stringify({ after, got });
  expect(tokensOf(got), context).toBe(tokensOf(lacking));
  expect(
    got.filter((e) => e.data.type !== "token"),
    context,
  ).toEqual(lacking.filter((e) => e.data.type !== "token"));
  expect(got.at(-1), context).toEqual(all.at(-1)!);
  const ids = got.map((e) => e.id);
  expect(
    ids.every((id, i) => id > after && (i === 0 || id > ids[i - 1]!)),
    context,
  ).toBe(true);
  // The token event carries the last token's id: a client resuming from it lacks no text.
  const lastToken = all.filter((e) => e.data.type === "token").at(-1)!.id;
  for (const e of got) if (e.data.type === "token") expect(e.id).toBe(lastToken);
}

describe("compacted replies", () => {
  test("resume from 0, mid-tokens, at the last token and after: the missing text, then the same terminal event", async () => {
    const { h, store, base, failing } = await setup();
    const key = await h.key();
    for (const url of [base, failing]) {
      const all = await readEvents(await post(url, key, "/v1/chat", { message: "go", stream: true }));
      const { conversation_id: convId, message_id: msgId } = all[0]!.data;
      const path = eventsPath(convId, msgId);
      expect(await storedEvents(h.store.db, msgId)).toBe(all.length);
      const before = await (await get(base, key, `/v1/conversations/${convId}`)).json();
      const done = await compactAll(store, Date.now() + 1_000);
      expect(done.replies).toBeGreaterThanOrEqual(1);
      expect(await storedEvents(h.store.db, msgId)).toBe(0);
      expect(await compacted(h.store.db, msgId)).toBe(true);
      expect(await (await get(base, key, `/v1/conversations/${convId}`)).json()).toEqual(before);
      const last = all.at(-1)!.id;
      for (const after of [0, 1, 2, 3, 7, 17, 18, 19, last - 3, last - 2, last - 1].filter((n) => n >= 0 && n < last)) {
        expectResume(all, after, await readEvents(await get(base, key, `${path}?after=${after}`)));
        const viaHeader = await readEvents(await get(base, key, path, { "last-event-id": String(after) }));
        expectResume(all, after, viaHeader);
      }
      for (const after of [last, last + 5]) {
        const res = await get(base, key, `${path}?after=${after}`);
        expect(res.status, await res.clone().text()).toBe(204);
      }
      // Compacting again changes nothing.
      await compactAll(store, Date.now() + 1_000);
      expectResume(all, 0, await readEvents(await get(base, key, path)));
    }
  });

  test("sources sent among the tokens: a resume from any id gets each before the text citing it, the same final sources", async () => {
    const { h, store, citing } = await setup();
    const key = await h.key();
    const all = await readEvents(await post(citing, key, "/v1/chat", { message: "go", stream: true }));
    expect(all.filter((e) => e.data.type === "sources")).toHaveLength(3);
    expect(growingSources(all.map((e) => e.data))).toEqual(SOURCES);
    const { conversation_id: convId, message_id: msgId } = all[0]!.data;
    const path = eventsPath(convId, msgId);
    await compactAll(store, Date.now() + 1_000);
    expect(await compacted(h.store.db, msgId)).toBe(true);
    // Compacted, not kept verbatim: only the non-token events remain besides the offsets.
    const [kept] = await rowsOf<{ n: number }>(
      h.store.db,
      sql`select jsonb_array_length(compacted_events -> 'kept') as n from messages where id = ${msgId}`,
    );
    expect(Number(kept!.n)).toBe(all.filter((e) => e.data.type !== "token").length);
    for (let after = 0; after < all.at(-1)!.id; after++) {
      const got = await readEvents(await get(citing, key, `${path}?after=${after}`));
      expectResume(all, after, got);
      // What the client had, then what it gets: sources still come before the text that cites them.
      const had = all.filter((e) => e.id <= after).map((e) => e.data);
      expect(growingSources([...had, ...got.map((e) => e.data)])).toEqual(SOURCES);
    }
    const { messages } = await (await get(citing, key, `/v1/conversations/${convId}`)).json();
    expect(messages[1].sources).toEqual(SOURCES);
  });

  test("a running reply and a recent one are untouched", async () => {
    const { h, store, base, slow, release } = await setup();
    const key = await h.key();
    const recent = await readEvents(await post(base, key, "/v1/chat", { message: "go", stream: true }));
    const recentId = recent[0]!.data.message_id;
    const reading = await post(slow, key, "/v1/chat", { message: "go", stream: true });
    const head = await readEvents(reading, 2);
    const runningId = head[0]!.data.message_id;
    await eventually(async () => ((await storedEvents(h.store.db, runningId)) >= 2 ? true : undefined));
    // Everything created before the reply started is due; the running one is not, whatever its age.
    await compactAll(store, Date.now() + 60_000);
    expect(await compacted(h.store.db, runningId)).toBe(false);
    expect(await storedEvents(h.store.db, runningId)).toBeGreaterThanOrEqual(2);
    // `recent` was compacted by the call above; a reply created after the cutoff is not.
    expect(await compacted(h.store.db, recentId)).toBe(true);
    const fresh = await readEvents(await post(base, key, "/v1/chat", { message: "go", stream: true }));
    const freshId = fresh[0]!.data.message_id;
    await compactAll(store, Date.now() - 60_000);
    expect(await compacted(h.store.db, freshId)).toBe(false);
    expect(await storedEvents(h.store.db, freshId)).toBe(fresh.length);
    release(); // the running reply ends now, not in another file's time
  });

  test("the periodic sweep compacts ended replies past REPLY_EVENTS_RETENTION", async () => {
    const h = await harness({
      agent: scriptedAgent(TOKENS, { sources: [] }),
      options: { replyEventsRetentionS: 0, replyLeaseMs: 1_000 },
    });
    const key = await h.key();
    const url = listen(h.app).url;
    const all = await readEvents(await post(url, key, "/v1/chat", { message: "go", stream: true }));
    const { conversation_id: convId, message_id: msgId } = all[0]!.data;
    await eventually(async () => ((await compacted(h.store.db, msgId)) ? true : undefined));
    expect(await storedEvents(h.store.db, msgId)).toBe(0);
    expectResume(all, 5, await readEvents(await get(url, key, `${eventsPath(convId, msgId)}?after=5`)));
    // Its fast sweeper (every 500 ms) must not outlive this test: other files expect leases to hold.
    await h.app.parley.close();
  });
});

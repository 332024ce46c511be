/**
 * Disk per 1,000 finished replies before and after event compaction:
 * `bun bench/compaction-disk.ts` (PGlite in memory) or with DATABASE_URL (PostgreSQL, a fresh
 * database). One 1,000-token reply is generated through the app (so its events are exactly what
 * the app stores), then copied 999 times in SQL under new ids. Sizes are pg_total_relation_size
 * of message_events and messages (heap, TOAST, indexes): before; after compaction and a plain
 * VACUUM (the space is reusable by new rows but stays in the files); after VACUUM FULL (returned
 * to the operating system). Prints one JSON line.
 */
import { sql } from "drizzle-orm";
import type { Agent } from "../src/agent/types.ts";
import { createApp } from "../src/app/app.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { createLogger } from "../src/config/logger.ts";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { compactEvents } from "../src/replies/compact.ts";
import { rowsOf } from "../src/replies/statements.ts";

const TOKENS = 1_000;
const REPLIES = 1_000;
const store = process.env.DATABASE_URL
  ? openPostgres(process.env.DATABASE_URL, { max: 4, waitMs: 600_000 })
  : await openPglite();
await migrate(store);
const agent: Agent = {
  async *respond() {
    for (let i = 0; i < TOKENS; i++) yield { type: "token", content: ` w${i % 1000}` };
    yield { type: "sources", sources: ["https://example.com/doc"] };
  },
};
const app = createApp({ store, agent, logger: createLogger("silent") });
const { secret } = await createKey(store.db, { name: "bench", plan: "enterprise", rpm: 100_000, rpd: 1_000_000 });
const chat = await app.handle(
  new Request("http://localhost/v1/chat", {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ message: "one long reply" }),
  }),
);
const reply = (await chat.json()) as { id: string };
if (!chat.ok) throw new Error(`chat: ${JSON.stringify(reply)}`);
// Only the copies are measured: the app's own reply is removed after they are made.
await store.db.execute(sql`
  insert into messages (id, conversation_id, role, content, sources, status, created_at, last_seq)
  select m.id || '_' || g, m.conversation_id, m.role, m.content, m.sources, m.status, m.created_at, m.last_seq
  from messages m, generate_series(1, ${REPLIES}) g where m.id = ${reply.id}`);
await store.db.execute(sql`
  insert into message_events (message_id, seq, data)
  select e.message_id || '_' || g, e.seq, e.data
  from message_events e, generate_series(1, ${REPLIES}) g where e.message_id = ${reply.id}`);
await store.db.execute(sql`delete from messages where id = ${reply.id}`);

const size = async () => {
  const [r] = await rowsOf<{ events: string; messages: string; n: string }>(
    store.db,
    sql`select pg_total_relation_size('message_events') as events, pg_total_relation_size('messages') as messages,
      (select count(*) from message_events) as n`,
  );
  const mb = (b: string) => Math.round(Number(b) / 1e4) / 100;
  return {
    events_mb: mb(r!.events),
    messages_mb: mb(r!.messages),
    total_mb: mb(r!.events) + mb(r!.messages),
    rows: Number(r!.n),
  };
};
await store.db.execute(sql`vacuum analyze`);
const before = await size();
const started = performance.now();
let compacted = 0;
for (;;) {
  const { replies } = await compactEvents(store.db, Date.now() + 60_000);
  compacted += replies;
  if (replies === 0) break;
}
const compactMs = Math.round(performance.now() - started);
await store.db.execute(sql`vacuum analyze`);
const afterVacuum = await size();
await store.db.execute(sql`vacuum full`);
const afterFull = await size();
console.log(
  JSON.stringify({
    store: process.env.DATABASE_URL ? "postgres" : "pglite",
    replies: REPLIES,
    tokens_per_reply: TOKENS,
    compacted,
    compact_ms: compactMs,
    before,
    after_vacuum: afterVacuum,
    after_vacuum_full: afterFull,
  }),
);
await app.parley.close();
await store.close();

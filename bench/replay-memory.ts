/**
 * RSS added by 50 concurrent replays of one finished 20,000-event reply:
 * `bun bench/replay-memory.ts` (PGlite in memory) or with DATABASE_URL (PostgreSQL). The reply
 * is generated once (20,000 tokens), then 50 clients GET …/events?after=0 at once and read to the
 * end at a modest pace (a pause every 64 KiB, as a real client's socket does); RSS is sampled
 * every 20 ms. Prints one JSON line: baseline, peak and added MiB, and the events each client got.
 */

import type { Agent } from "../src/agent/types.ts";
import { createApp } from "../src/app/app.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { createLogger } from "../src/config/logger.ts";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";

const EVENTS = 20_000;
const CLIENTS = Number(process.env.REPLAY_CLIENTS ?? 50);
const store = process.env.DATABASE_URL ? openPostgres(process.env.DATABASE_URL, { max: 10 }) : await openPglite();
await migrate(store);
const agent: Agent = {
  async *respond() {
    for (let i = 0; i < EVENTS - 3; i++) yield { type: "token", content: ` token${i}` };
    yield { type: "sources", sources: [] };
  },
};
const app = createApp({ store, agent, logger: createLogger("silent") });
const { secret } = await createKey(store.db, { name: "bench", plan: "enterprise", rpm: 100_000, rpd: 1_000_000 });
const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
const chat = await app.handle(
  new Request("http://localhost/v1/chat", { method: "POST", headers, body: JSON.stringify({ message: "long one" }) }),
);
const reply = (await chat.json()) as { id: string; conversation_id: string };
if (!chat.ok) throw new Error(`chat: ${JSON.stringify(reply)}`);
const url = `http://localhost/v1/conversations/${reply.conversation_id}/messages/${reply.id}/events?after=0`;

Bun.gc(true);
await Bun.sleep(200);
Bun.gc(true);
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const counts = await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    const res = await app.handle(new Request(url, { headers }));
    if (res.status !== 200) throw new Error(`replay: ${res.status} ${await res.text()}`);
    const reader = res.body!.getReader();
    let bytes = 0;
    let events = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      // Events counted on the bytes ("id: " at a line start), allocating nothing: the RSS measured
      // is the server's, not this client's decoding.
      for (let i = 0; i + 3 < value.length; i++)
        if (value[i] === 105 && value[i + 1] === 100 && value[i + 2] === 58 && (i === 0 || value[i - 1] === 10))
          events++;
      if (bytes >= 65_536) {
        bytes = 0;
        await Bun.sleep(1);
      }
    }
    return events;
  }),
);
clearInterval(sampler);
const mib = (n: number) => Math.round((n / 1_048_576) * 10) / 10;
console.log(
  JSON.stringify({
    store: store.kind,
    clients: CLIENTS,
    events: EVENTS,
    baseline_mib: mib(baseline),
    peak_mib: mib(peak),
    added_mib: mib(peak - baseline),
    events_per_client: [...new Set(counts)],
  }),
);
await store.close();
process.exit(0);

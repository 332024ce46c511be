/**
 * Added latency of following a reply from another instance (through the database) vs from the
 * instance that generates it. One agent emits a token every 20 ms stamped with its time; a
 * client on instance A (the generator) and one on instance B (events endpoint) record when each
 * token arrives. Run: `bun bench/resume-latency.ts [postgres://…]` (no URL: in-memory PGlite).
 */
import { createParser } from "eventsource-parser";
import type { Agent } from "../src/agent/types.ts";
import { createApp } from "../src/app/app.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { createLogger } from "../src/config/logger.ts";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";

const url = process.argv[2];
const TOKENS = 200;
const agent: Agent = {
  async *respond() {
    for (let i = 0; i < TOKENS; i++) {
      await new Promise((r) => setTimeout(r, 20));
      yield { type: "token", content: `${performance.now().toFixed(3)} ` };
    }
    yield { type: "sources", sources: [] };
  },
};
const storeA = url ? openPostgres(url) : await openPglite();
await migrate(storeA);
const storeB = url ? openPostgres(url) : storeA;
const logger = createLogger("silent");
const a = createApp({ store: storeA, agent, logger }).listen({ port: 0, hostname: "127.0.0.1" });
const b = createApp({ store: storeB, agent, logger }).listen({ port: 0, hostname: "127.0.0.1" });
const { secret } = await createKey(storeA.db, { name: "bench", plan: "enterprise", rpm: 1_000_000, rpd: 10_000_000 });
const auth = { authorization: `Bearer ${secret}` };

async function delays(res: Response, onStart?: (d: any) => void): Promise<number[]> {
  const out: number[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const d = JSON.parse(e.data);
      if (d.type === "start") onStart?.(d);
      if (d.type === "token") out.push(performance.now() - Number(d.content));
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) parser.feed(decoder.decode(chunk, { stream: true }));
  return out;
}

let started!: (d: any) => void;
const start = new Promise<any>((r) => (started = r));
const local = fetch(`http://127.0.0.1:${a.server!.port}/v1/chat`, {
  method: "POST",
  headers: { ...auth, "content-type": "application/json" },
  body: JSON.stringify({ message: "bench", stream: true }),
}).then((r) => delays(r, started));
const s = await start;
const remote = fetch(
  `http://127.0.0.1:${b.server!.port}/v1/conversations/${s.conversation_id}/messages/${s.message_id}/events`,
  {
    headers: auth,
  },
).then((r) => delays(r));
const [l, r] = await Promise.all([local, remote]);
const pct = (xs: number[], p: number) =>
  [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const row = (name: string, xs: number[]) =>
  `${name}: p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} tokens)`;
console.log(url ? "PostgreSQL (two pools, LISTEN/NOTIFY)" : "PGlite (one process, in-process notifier)");
console.log(row("generating instance", l));
// The follower joined a little after the start: count only tokens it received live.
console.log(row("other instance     ", r.slice(Math.floor(r.length / 4))));
a.stop(true);
b.stop(true);
process.exit(0);

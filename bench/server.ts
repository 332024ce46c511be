/**
 * The Parley server as the bench runs it: the real app (createApp) in its own process, on the
 * store and agent the environment names. Prints `ready <port>`.
 *   BENCH_AGENT=default | instant:<tokens> | hold | llm   (hold: every reply waits for SIGUSR2, then
 *   yields one token carrying the broadcast time and ends a second later, for the fan-out measurement;
 *   llm: the model agent LLM_* describe, as the server builds it)
 */
import { agentFromEnv } from "../src/agent/llm/index.ts";
import type { Agent } from "../src/agent/types.ts";
import { createApp } from "../src/app/app.ts";
import { loadEnv } from "../src/config/env.ts";
import { createLogger } from "../src/config/logger.ts";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";

const env = process.env;
const store = env.DATABASE_URL ? openPostgres(env.DATABASE_URL, { max: 10 }) : await openPglite(env.DATA_DIR);
await migrate(store);

let release: (at: number) => void = () => {};
const broadcast = new Promise<number>((r) => (release = r));
process.on("SIGUSR2", () => release(performance.timeOrigin + performance.now()));
// SIGUSR1: collect garbage, so RSS readings compare live memory rather than GC timing.
process.on("SIGUSR1", () => Bun.gc(true));

function agentFrom(spec = "default"): Agent | undefined {
  if (spec.startsWith("instant:")) {
    const n = Number(spec.slice(8));
    return {
      async *respond() {
        for (let i = 0; i < n; i++) yield { type: "token", content: ` t${i}` };
        yield { type: "sources", sources: [] };
      },
    };
  }
  if (spec === "hold") {
    return {
      async *respond() {
        yield { type: "token", content: String(await broadcast) };
        // Finish a second later: the broadcast measures token delivery, not 1,000 replies being stored at once.
        await Bun.sleep(1_000);
        yield { type: "sources", sources: [] };
      },
    };
  }
  if (spec === "llm") return agentFromEnv(loadEnv(process.env), store.db, createLogger("error"));
  return undefined; // the default retrieval agent
}

const app = createApp({
  store,
  agent: agentFrom(env.BENCH_AGENT),
  logger: createLogger("error"),
  options: { rateLimit: env.RATE_LIMIT !== "off", keepAliveMs: Number(env.KEEPALIVE_MS ?? 15_000) },
  metricsToken: env.METRICS_TOKEN,
}).listen({ port: 0, hostname: "127.0.0.1" });
console.log(`ready ${app.server!.port}`);

process.on("SIGTERM", async () => {
  void app.server!.stop(false);
  await app.parley.replies.drain(5_000); // replies in flight when the load stops still finish and store
  const deadline = Date.now() + 5_000;
  while (app.server!.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(10);
  await app.server!.stop(true);
  await app.parley.close();
  await store.close();
  process.exit(0);
});

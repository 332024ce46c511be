/**
 * `serve`: migrate, seed the sample knowledge base into an empty store, listen, and shut down
 * gracefully: stop accepting, let running replies finish within the grace period (then end
 * them with an `error` event), close the store cleanly. Bun-only.
 */
import { createApp } from "./http/app.ts";
import { RunRegistry } from "./chat/run.ts";
import { type Env, optionsFromEnv } from "./config/env.ts";
import { createLogger } from "./config/logger.ts";
import { migrate } from "./db/migrate.ts";
import { openStoreFromEnv } from "./cli/store.ts";
import { SAMPLE_DOCS } from "./knowledge/sample.ts";
import { countDocuments, ingestDocuments } from "./knowledge/service.ts";

export async function serve(env: Env): Promise<void> {
  const logger = createLogger(env.LOG_LEVEL);
  const store = await openStoreFromEnv(env);
  await migrate(store);
  if ((await countDocuments(store.db)) === 0) {
    await ingestDocuments(store.db, SAMPLE_DOCS);
    logger.info("empty knowledge base: loaded the sample documents about Parley", { documents: SAMPLE_DOCS.length });
  }
  const runs = new RunRegistry();
  const app = createApp({ store, runs, logger, options: optionsFromEnv(env) }).listen({
    port: env.PORT,
    hostname: env.HOST,
  });
  const server = app.server!;
  logger.info("listening", { url: `http://${server.hostname}:${server.port}`, store: store.describe });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal, running_replies: runs.size, grace_ms: env.SHUTDOWN_GRACE_MS });
    const deadline = Date.now() + env.SHUTDOWN_GRACE_MS;
    let code = 0;
    try {
      void server.stop(false); // no new connections; open streams carry on
      await runs.drain(env.SHUTDOWN_GRACE_MS);
      // Requests not yet at the run stage (auth, storing the question) finish too, within the grace;
      // a run one of them starts now is drained (or cut off) like the others.
      while (server.pendingRequests > 0 && Date.now() < deadline + 1_000) await Bun.sleep(10);
      await runs.drain(Math.max(0, deadline - Date.now()));
      await server.stop(true);
      await store.close();
      logger.info("stopped");
    } catch (error) {
      // An unclean close can leave the PGlite folder damaged: say so, and exit non-zero.
      logger.error("shutdown failed", { error });
      code = 1;
    }
    process.exit(code);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

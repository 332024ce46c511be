/**
 * `serve`: migrate, seed the sample knowledge base into an empty store, listen, and shut down
 * gracefully. SIGTERM and SIGINT are handled from before the store is opened:
 * - during start-up (opening the store, which runs PGlite's initdb on a new folder; migrating;
 *   seeding), start-up stops once the current step is done, the store is closed, exit 0;
 * - while serving: stop accepting, let running replies finish within SHUTDOWN_GRACE_MS (then end
 *   them with an `error` event), close the store cleanly, exit 0;
 * - a second signal while stopping cuts the running replies off at once (each still ends with an
 *   `error` event and is stored as failed), then closes the store, exit 0.
 * The process never exits with the store open, unless closing it hangs past CLOSE_TIMEOUT_MS
 * (then it says so and exits 1). Bun-only.
 */
import { agentFromEnv } from "./agent/llm/index.ts";
import type { Agent } from "./agent/types.ts";
import { createApp } from "./http/app.ts";
import { RunRegistry } from "./chat/run.ts";
import { type Env, optionsFromEnv } from "./config/env.ts";
import { createLogger } from "./config/logger.ts";
import { migrate } from "./db/migrate.ts";
import { docsScript } from "./cli/docs-asset.ts";
import { CLOSE_TIMEOUT_MS, closeWithin, type OpenedStore, openStoreFromEnv } from "./cli/store.ts";
import { SAMPLE_DOCS } from "./knowledge/sample.ts";
import { countDocuments, ingestDocuments } from "./knowledge/service.ts";

/** What a program embedding the server may choose; the environment sets everything else. */
export interface ServeOptions {
  /** Who writes the replies; defaults to the retrieval agent over the store's knowledge base. */
  agent?: Agent;
}

/** The listening server, as far as shutdown uses it. */
interface Listening {
  readonly pendingRequests: number;
  stop(closeActiveConnections?: boolean): Promise<void>;
}

/** Serves until SIGTERM/SIGINT, then exits the process itself (see above); resolves once listening. */
export async function serve(env: Env, { agent }: ServeOptions = {}): Promise<void> {
  const logger = createLogger(env.LOG_LEVEL, env.LOG_FORMAT);
  const runs = new RunRegistry();
  let store: OpenedStore | undefined;
  let server: Listening | undefined;
  let signalled: NodeJS.Signals | undefined;
  let hurriedAt: number | undefined;
  let hurry!: () => void;
  const hurried = new Promise<void>((r) => (hurry = r));

  /** Closes the store (within CLOSE_TIMEOUT_MS) and exits with `code`, or 1 when closing fails. */
  const exit = async (code: number): Promise<never> => {
    try {
      if (store && (await closeWithin(store, CLOSE_TIMEOUT_MS)) === "timeout") {
        logger.error({ timeout_ms: CLOSE_TIMEOUT_MS }, "closing the store timed out; exiting without a clean close");
        code = 1;
      }
    } catch (error) {
      // An unclean close can leave the PGlite folder damaged: say so, and exit non-zero.
      logger.error({ error }, "closing the store failed");
      code = 1;
    }
    if (code === 0) logger.info({}, "stopped");
    process.exit(code);
  };

  const shutdown = async (signal: NodeJS.Signals, srv: Listening): Promise<never> => {
    logger.info({ signal, running_replies: runs.size, grace_ms: env.SHUTDOWN_GRACE_MS }, "shutting down");
    const deadline = Date.now() + env.SHUTDOWN_GRACE_MS;
    // Runs get `ms` to finish, unless a second signal comes meanwhile: then they are cut off at once.
    const drain = (ms: number) => Promise.race([runs.drain(ms), hurried.then(() => runs.drain(0))]);
    try {
      void srv.stop(false); // no new connections; open streams carry on
      await drain(env.SHUTDOWN_GRACE_MS);
      // Requests not yet at the run stage (auth, storing the question) finish too, within the grace
      // (within 1 s of a second signal); a run one of them starts now is drained (or cut off) like the others.
      const until = () => Math.min(deadline, hurriedAt ?? Infinity) + 1_000;
      while (srv.pendingRequests > 0 && Date.now() < until()) await Bun.sleep(10);
      await drain(Math.max(0, deadline - Date.now()));
      await srv.stop(true);
    } catch (error) {
      logger.error({ error }, "shutdown failed");
      return exit(1);
    }
    return exit(0);
  };

  // Installed before the store is opened: from here on a signal never kills the process in the
  // middle of a write (PGlite's initdb, a migration); start-up stops at its next step instead.
  const onSignal = (signal: NodeJS.Signals) => {
    if (!signalled) {
      signalled = signal;
      if (server) void shutdown(signal, server);
      else logger.info({ signal }, "signal during start-up: stopping once the current step is done");
    } else if (hurriedAt === undefined) {
      hurriedAt = Date.now();
      hurry();
      if (server) logger.warn({ signal, running_replies: runs.size }, "second signal: ending the running replies now");
      else logger.warn({ signal }, "second signal during start-up: the current step must finish before the store can close");
    }
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  store = await openStoreFromEnv(env);
  try {
    if (!signalled) await migrate(store);
    if (!signalled && (await countDocuments(store.db)) === 0) {
      await ingestDocuments(store.db, SAMPLE_DOCS);
      logger.info({ documents: SAMPLE_DOCS.length }, "empty knowledge base: loaded the sample documents about Parley");
    }
    if (signalled) return await exit(0);
    // No await from the check above to `server` being set: a signal lands either before it
    // (start-up stops) or after it (graceful shutdown), never in between.
    const model = agent ?? agentFromEnv(env, store.db, logger); // LLM_PROVIDER unset: the retrieval agent
    const app = createApp({ store, runs, logger, agent: model, options: optionsFromEnv(env), docsScript }).listen({
      port: env.PORT,
      hostname: env.HOST,
    });
    server = app.server!;
    logger.info({ url: `http://${app.server!.hostname}:${app.server!.port}`, store: store.describe }, "listening");
  } catch (error) {
    // The caller reports the failure (exit 1); the store is closed first all the same.
    await closeWithin(store, CLOSE_TIMEOUT_MS).catch(() => {});
    throw error;
  }
}

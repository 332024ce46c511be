/**
 * `serve`: migrate, seed the sample knowledge base into an empty store, listen, and shut down
 * gracefully: the shutdown contract is docs/architecture.md#shutdown-and-signals.
 * On PGlite the server holds DATA_DIR's server lock for its whole life (a second server on the
 * folder is refused at once), waits for a CLI command that holds the folder to end, and serves
 * CLI commands on its admin socket (runtime/admin.ts). A port already in use stops start-up with a
 * clear error, exit 1: the listener does not share its port (no SO_REUSEPORT) unless REUSE_PORT=true.
 * Bun-only.
 */

import { resolve } from "node:path";
import type { Agent } from "./agent/index.ts";
import { agentFromEnv, retrievalAgent } from "./agent/index.ts";
import { createApp } from "./app/app.ts";
import { issueSetupCode, withdrawSetupCode } from "./auth/index.ts";
import { type Env, optionsFromEnv, tracingFromEnv } from "./config/env.ts";
import { createLogger } from "./config/logger.ts";
import { migrate } from "./db/migrate.ts";
import { reindexOnce, seedSampleOnce } from "./knowledge/index.ts";
import type { ParleyHandle } from "./mod.ts";
import { type AdminServer, startAdmin } from "./runtime/admin.ts";
import { consoleAssets } from "./runtime/console-assets.ts";
import { docsScript } from "./runtime/docs-asset.ts";
import { type StartedEmbeddings, startEmbeddings } from "./runtime/embeddings.ts";
import { describeHolder, lockServer } from "./runtime/lock.ts";
import { CLOSE_TIMEOUT_MS, closeWithin, type OpenedStore, openStoreFromEnv } from "./runtime/store.ts";
import { startWatchdog } from "./runtime/watchdog.ts";
import { widgetScript } from "./runtime/widget-asset.ts";
import { createTracing } from "./tracing/index.ts";

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
  // The AI SDK prints model warnings to the console unless told otherwise; this process's output
  // is the logger's. (The library never sets this global: a host app's choice stays its own.)
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS ??= false;
  let parley: ParleyHandle | undefined;
  const running = () => parley?.replies.running ?? 0;
  let store: OpenedStore | undefined;
  let server: Listening | undefined;
  let admin: AdminServer | undefined;
  let embeddings: StartedEmbeddings | undefined;
  let releaseServerLock: (() => void) | undefined;
  let setup: Awaited<ReturnType<typeof issueSetupCode>> = null;
  let signalled: NodeJS.Signals | undefined;
  let hurriedAt: number | undefined;
  let hurry!: () => void;
  const hurried = new Promise<void>((r) => (hurry = r));

  /** Closes the store (within CLOSE_TIMEOUT_MS) and exits with `code`, or 1 when closing fails. */
  const exit = async (code: number): Promise<never> => {
    try {
      await embeddings?.stop();
      if (store && (await closeWithin(store, CLOSE_TIMEOUT_MS)) === "timeout") {
        logger.error({ timeout_ms: CLOSE_TIMEOUT_MS }, "closing the store timed out; exiting without a clean close");
        code = 1;
      }
    } catch (error) {
      // An unclean close can leave the PGlite folder damaged: say so, and exit non-zero.
      logger.error({ error }, "closing the store failed");
      code = 1;
    }
    releaseServerLock?.();
    if (code === 0) logger.info({}, "stopped");
    process.exit(code);
  };

  const shutdown = async (signal: NodeJS.Signals, srv: Listening): Promise<never> => {
    logger.info({ signal, running_replies: running(), grace_ms: env.SHUTDOWN_GRACE_MS }, "shutting down");
    const deadline = Date.now() + env.SHUTDOWN_GRACE_MS;
    // Runs get `ms` to finish, unless a second signal comes meanwhile: then they are cut off at once.
    const drain = async (ms: number) => {
      if (parley) await Promise.race([parley.replies.drain(ms), hurried.then(() => parley?.replies.drain(0))]);
    };
    try {
      void srv.stop(false); // no new connections; open streams carry on
      admin?.stop(); // no new CLI commands; a running ingest stops before its next batch
      await drain(env.SHUTDOWN_GRACE_MS);
      // Requests not yet at the run stage (auth, storing the question) finish too, within the grace
      // (within 1 s of a second signal); a run one of them starts now is drained (or cut off) like the others.
      const until = () => Math.min(deadline, hurriedAt ?? Infinity) + 1_000;
      while (srv.pendingRequests > 0 && Date.now() < until()) await Bun.sleep(10);
      await drain(Math.max(0, deadline - Date.now()));
      await srv.stop(true);
      await parley?.close();
      // The code this server printed dies with it (a crash leaves it to its expiry).
      if (setup && store) await withdrawSetupCode(store.db, setup.code).catch(() => {});
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
      if (server) logger.warn({ signal, running_replies: running() }, "second signal: ending the running replies now");
      else
        logger.warn(
          { signal },
          "second signal during start-up: the current step must finish before the store can close",
        );
    }
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  const dataDir = resolve(env.DATA_DIR);
  if (!env.REUSE_PORT) checkPortFree(env.PORT, env.HOST); // fail in milliseconds, not after initdb and migrations
  if (!env.DATABASE_URL) releaseServerLock = await lockServer(dataDir); // throws naming the other server
  let waitLogged = false;
  try {
    store = await openStoreFromEnv(env, {
      command: "serve",
      warn: (msg) => logger.warn(msg),
      // With the server lock ours, a CLI command (wait for it to end) or an app that embeds the
      // library (it keeps the folder for its whole life: refused at once) holds the folder.
      onBusy: async (busy) => {
        if (busy.holder.embedded) throw busy;
        if (signalled) throw new StartupStopped();
        if (!waitLogged)
          logger.info(
            { holder: describeHolder(busy.holder) },
            "the data folder is in use by a Parley command; waiting for it to end",
          );
        waitLogged = true;
        await Bun.sleep(100);
      },
    });
  } catch (error) {
    if (error instanceof StartupStopped) return await exit(0);
    releaseServerLock?.();
    throw error;
  }
  try {
    if (!signalled) await migrate(store);
    const seeded = signalled ? 0 : await seedSampleOnce(store.db);
    if (seeded)
      logger.info({ documents: seeded }, "new store: loaded the sample documents about Parley into 'default'");
    const reindexed = signalled ? null : await reindexOnce(store);
    if (reindexed?.recut || reindexed?.redetected)
      logger.info({ ...reindexed }, "re-indexed stored documents for this release's language detection and cutting");
    // A store without an admin key gets a one-time setup code for the console's first run (auth/setup.ts).
    setup = signalled ? null : await issueSetupCode(store.db);
    if (!signalled) embeddings = await startEmbeddings(env, store.db, logger);
    // Loads the OpenTelemetry SDK only when an OTLP endpoint is set; `parley.close()` flushes it.
    const tracing = await createTracing(tracingFromEnv(env));
    if (signalled) return await exit(0);
    // No await from the check above to `server` being set: a signal lands either before it
    // (start-up stops) or after it (graceful shutdown), never in between.
    const app = createApp({
      store,
      logger,
      agent:
        agent ??
        agentFromEnv(env, store.db, logger, embeddings?.semantic) ??
        retrievalAgent(store.db, { semantic: embeddings?.semantic }),
      options: optionsFromEnv(env),
      embedder: embeddings?.semantic?.embedder,
      docsScript,
      metricsToken: env.METRICS_TOKEN,
      tracing,
      consoleAssets,
      widgetScript,
    });
    parley = app.parley;
    // Elysia's Bun adapter asks for SO_REUSEPORT: two servers on one port would both start and
    // the kernel would split the connections between them. The port may have been taken since
    // the early check: the same error then.
    portInUse(env.PORT, env.HOST, () => app.listen({ port: env.PORT, hostname: env.HOST, reusePort: env.REUSE_PORT }));
    if (!env.DATABASE_URL) {
      const opened = store;
      try {
        admin = startAdmin(
          dataDir,
          opened,
          (command, code) => logger.info({ command, exit_code: code }, "admin command"),
          (error) => logger.error({ error }, "admin socket request failed"),
          { sources: optionsFromEnv(env).sources, syncs: app.parley.sources },
        );
      } catch (error) {
        // E.g. a DATA_DIR path longer than a socket path may be (about 100 bytes): the server runs,
        // and CLI commands say why they cannot reach it.
        logger.warn({ error }, "no admin socket: CLI commands cannot run while this server holds the data folder");
      }
    }
    server = app.server!;
    // From here on a stalled event loop ends the process (shutdown included: a close that never
    // returns); start-up's long synchronous steps (initdb, migrations) are behind us.
    if (env.WATCHDOG_MS > 0) startWatchdog(env.WATCHDOG_MS, env.LOG_FORMAT);
    const url = `http://${app.server!.hostname}:${app.server!.port}`;
    // Before "listening": whoever waits for that line has seen this one.
    if (setup)
      logger.warn(
        { setup_code: setup.code, expires_at: setup.expiresAt.toISOString(), console: `${url}/console` },
        `no admin key yet: open ${url}/console and enter the setup code ${setup.code} (valid once, until ${setup.expiresAt.toISOString()}; or run \`parley keys create --admin\`)`,
      );
    logger.info({ url, store: store.describe }, "listening");
  } catch (error) {
    // The caller reports the failure (exit 1); the store is closed first all the same.
    admin?.stop();
    await embeddings?.stop();
    await closeWithin(store, CLOSE_TIMEOUT_MS).catch(() => {});
    releaseServerLock?.();
    throw error;
  }
}

/** Runs `listen`, turning "address in use" into an error that says which port and what to do. */
function portInUse(port: number, host: string, listen: () => void): void {
  try {
    listen();
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    throw new Error(
      `port ${port} on ${host} is already in use (another Parley server or another program): stop it or set PORT`,
    );
  }
}

/** Throws (as portInUse) when `port` cannot be bound now; binds and closes a plain TCP listener. */
function checkPortFree(port: number, host: string): void {
  if (port === 0) return;
  portInUse(port, host, () => Bun.listen({ hostname: host, port, socket: { data() {} } }).stop(true));
}

/** A signal while waiting for the data folder: start-up stops there. */
class StartupStopped extends Error {}

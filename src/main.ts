#!/usr/bin/env bun
/**
 * The one command-line entry: `serve`, `migrate`, `keys …`, `ingest …`, `sources …`, `--version`.
 * The environment is validated before anything else; a bad value stops here.
 */
import { resolve } from "node:path";
// A JSON import: `bun build --compile` puts the value in the binary, which has no package.json beside it.
import pkg from "../package.json" with { type: "json" };
import { type Env, loadEnv, optionsFromEnv } from "./config/env.ts";
import { ADMIN_SOCKET, adminAnswers, exportFrom, forward, socketPathProblem } from "./runtime/admin.ts";
import { writeArchive } from "./runtime/cli/archive.ts";
import { runStoreCommand } from "./runtime/cli/commands.ts";
import { consoleIo } from "./runtime/cli/io.ts";
import { describeHolder, LockBusy, serverHolding } from "./runtime/lock.ts";
import { CLOSE_TIMEOUT_MS, closeWithin, type OpenedStore, openStoreFromEnv } from "./runtime/store.ts";
import { serve } from "./server.ts";

const USAGE = `usage: parley <command>
  serve                 migrate, then serve the API (default store: PGlite in DATA_DIR)
  migrate               apply database migrations
  keys create|list|revoke|update ...   (keys create --admin: an admin key)
  ingest [--kb NAME] [--base-url URL [--url-style clean|slash|html|keep]] PATH...
                        load documents (.jsonl, .md, .txt, .html) into a knowledge base; --base-url:
                        the address a docs folder is served at, for files without a url
  sources add URL|list|sync ID|remove ID --kb KB ...
                        a knowledge base's web sources (parley sources help: the flags); add and
                        sync run the sync here and wait for it, or on the running server (--wait)
                        (migrate, keys, ingest and sources run on the running server when it holds DATA_DIR)
  export|backup [--out FILE]   an archive of the whole store (to stdout without --out), also
                        while a server runs on it
  import FILE [--dry-run]      load an archive into a new, empty store (README: Backups)
  healthcheck           exit 0 when the server on PORT answers /healthz (for containers)
  --version, -v         print the version`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (command === "--version" || command === "-v") {
    console.log(`parley ${pkg.version}`);
    return 0;
  }
  if (
    !["serve", "migrate", "keys", "ingest", "sources", "export", "backup", "import", "healthcheck"].includes(command)
  ) {
    console.error(`unknown command '${command}'\n${USAGE}`);
    return 2;
  }
  const env = loadEnv(process.env);
  if (command === "healthcheck") {
    const res = await fetch(`http://127.0.0.1:${env.PORT}/healthz`, { signal: AbortSignal.timeout(2_000) }).catch(
      () => null,
    );
    return res?.ok ? 0 : 1;
  }
  if (command === "serve") {
    await serve(env);
    return -1; // keeps running
  }
  interruptible(command);
  return storeCommand(env, command, rest);
}

/** How long a CLI command waits for a server that holds the folder to answer on its socket (it may be starting). */
const SERVER_WAIT_MS = 60_000;

/**
 * A store command. With PGlite, the folder may be held: by a running server (the command is
 * forwarded to its admin socket, see runtime/admin.ts; while the server starts, e.g. during PGlite's
 * initdb, we wait for the socket to answer), or by another command (a clear error, exit 1).
 */
async function storeCommand(env: Env, command: string, rest: string[]): Promise<number> {
  const dir = resolve(env.DATA_DIR);
  const label = (command === "keys" || command === "sources") && rest[0] ? `${command} ${rest[0]}` : command;
  const deadline = Date.now() + SERVER_WAIT_MS;
  for (;;) {
    const opening = openStoreFromEnv(env, { command: label, warn: (msg) => console.error(`warning: ${msg}`) });
    state.opening = opening; // a signal from here on closes what it opens (PGlite's initdb takes seconds)
    const busy = await opening.then(
      () => null,
      (e) => (e instanceof LockBusy ? e : null),
    );
    if (!busy) return local(opening, command, rest, env);
    state.opening = undefined;
    const server = serverHolding(dir);
    if (!server) throw busy; // another command holds it
    if (interrupted) return -1;
    const problem = socketPathProblem(dir);
    if (problem)
      throw new Error(
        `The data folder ${dir} is held by a Parley server (${describeHolder(server)}) that cannot take commands: ${problem}.`,
      );
    if (command === "import")
      throw new Error(
        `The data folder ${dir} is held by a Parley server (${describeHolder(server)}): an import goes into a new, empty store; stop the server or choose another DATA_DIR.`,
      );
    if (await adminAnswers(dir))
      return command === "export" || command === "backup"
        ? writeArchive(await exportFrom(dir, state.stop.signal), rest, consoleIo)
        : forwarded(dir, [command, ...rest]);
    if (Date.now() > deadline) {
      throw new Error(
        `The data folder ${dir} is held by a Parley server (${describeHolder(server)}) that does not answer on ${resolve(dir, ADMIN_SOCKET)} ` +
          `after ${SERVER_WAIT_MS / 1000} s: it may be paused or stuck. Resume or stop it, then run the command again.`,
      );
    }
    await Bun.sleep(200);
  }
}

/** Runs the command on the store this process opened. */
async function local(opening: Promise<OpenedStore>, command: string, rest: string[], env: Env): Promise<number> {
  const store = await opening;
  if (interrupted) return -1; // the signal handler closes the store and exits
  try {
    state.running = runStoreCommand(store, command, rest, consoleIo, state.stop.signal, {
      sources: optionsFromEnv(env).sources,
    });
    return await state.running;
  } finally {
    await store.close(); // the same close as the signal handler's, if it started one
  }
}

/** Runs the command on the server holding `dir`, printing its output as if it ran here. */
async function forwarded(dir: string, argv: string[]): Promise<number> {
  state.forwarding = new AbortController();
  const { code, stdout, stderr } = await forward(dir, argv, state.forwarding.signal);
  for (const line of stderr) console.error(line);
  for (const line of stdout) console.log(line);
  return code;
}

/** The exit code after an interrupting signal, as shells report it (128 + the signal's number). */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };
let interrupted: NodeJS.Signals | undefined;
/** What a signal has to stop: the store this process opens, or a command forwarded to the server. */
const state: {
  opening?: Promise<OpenedStore>;
  /** The command running on it: a signal lets it stop (and write its last rows) before the store closes. */
  running?: Promise<number>;
  forwarding?: AbortController;
  stop: AbortController;
} = { stop: new AbortController() };
/** How long a signalled command may take to stop before the store is closed under it. */
const STOP_WAIT_MS = 5_000;

/**
 * SIGINT/SIGTERM during a store command, including while PGlite creates a new folder: abort the
 * command, close the store, exit 130/143 (docs/architecture.md#shutdown-and-signals).
 */
function interruptible(command: string): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return; // already closing; the close is bounded
    interrupted = signal;
    state.stop.abort();
    const code = SIGNAL_EXIT[signal] ?? 1;
    if (state.forwarding) {
      state.forwarding.abort();
      console.error(
        command === "sources"
          ? `${signal}: no longer waiting; the sync goes on in the server`
          : `${signal}: ${command} abandoned; the server stops it after the current batch`,
      );
      process.exit(code);
    }
    if (!state.opening) process.exit(code); // nothing opened yet (waiting for a server)
    console.error(`${signal}: stopping ${command} after the current batch, then closing the store`);
    void (async () => {
      let exitCode = code;
      try {
        const opened = await state.opening!;
        // A statement on a store being closed can hang PGlite: the command ends first (it was told to stop).
        if (state.running) await Promise.race([state.running.catch(() => {}), Bun.sleep(STOP_WAIT_MS)]);
        if ((await closeWithin(opened, CLOSE_TIMEOUT_MS)) === "timeout") {
          console.error(`error: closing the store timed out after ${CLOSE_TIMEOUT_MS / 1000} s`);
          exitCode = 1;
        }
      } catch (error) {
        // Opening it failed (nothing to close), or closing it did.
        console.error(`error: ${(error as Error).message}`);
        exitCode = 1;
      }
      if (exitCode !== 1) console.error(`${command} interrupted; the store was closed cleanly`);
      process.exit(exitCode);
    })();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

main(process.argv.slice(2)).then(
  (code) => {
    // After a signal, the handler exits once the store is closed; what the command did meanwhile
    // (finished, or failed on the closing store) does not decide the exit code.
    if (code >= 0 && !interrupted) process.exit(code);
  },
  (error: Error) => {
    if (interrupted) return;
    // A failed statement's message names the query; its cause says why (e.g. the disk is full).
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    console.error(`error: ${error.message}${cause}`);
    process.exit(1);
  },
);

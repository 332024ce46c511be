/**
 * The running server's admin socket, so `keys …`, `ingest …`, `sources …` and `migrate` work while a server
 * holds the PGlite folder (one process per folder), with no downtime.
 * - The server listens on DATA_DIR/parley.sock (a Unix socket, mode 0600, in the 0700 folder):
 *   only the folder's owner can connect; nothing is exposed on the network, and the HTTP app
 *   never sees these routes.
 * - A CLI command refused the folder lock while a live server holds the server lock forwards its
 *   arguments there; the server runs the very same command on its store and sends back the exit
 *   code and output lines, which the CLI prints as they would have been printed locally.
 * A socket file left by a crashed server is removed by the next server before it listens, and
 * never used by the CLI: it only connects while the server lock (kernel-held) shows a live server.
 * Bun-only (Bun.serve with `unix`, fetch with `unix`): CLI and server only.
 */
import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { exportArchive } from "../db/archive/index.ts";
import { forServer } from "./cli/args.ts";
import { runStoreCommand, type SourcesContext, STORE_COMMANDS } from "./cli/commands.ts";
import { bufferIo } from "./cli/io.ts";
import type { OpenedStore } from "./store.ts";

export const ADMIN_SOCKET = "parley.sock";

/** The longest Unix socket path every supported system takes (sun_path: 108 bytes on Linux, 104 on macOS, with its NUL). */
const MAX_SOCKET_PATH = 103;

/** Why `dir` cannot have an admin socket, or undefined when it can. */
export function socketPathProblem(dir: string): string | undefined {
  const path = join(dir, ADMIN_SOCKET);
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH)
    return `the admin socket path ${path} is ${bytes} bytes, over the ${MAX_SOCKET_PATH} a Unix socket path may have: use a shorter DATA_DIR`;
}

/** What the server sends back for a forwarded command. */
interface Outcome {
  code: number;
  stdout: string[];
  stderr: string[];
}

export interface AdminServer {
  readonly path: string;
  /** Refuses new commands, stops a running ingest before its next batch, removes the socket. */
  stop(): void;
}

/**
 * Listens on DATA_DIR/parley.sock. The caller must hold the server lock: a file already there
 * is a crashed server's leftover. `log` reports each command (its name only: arguments can be
 * file paths, output can be a secret). `sources`: the server's source options and syncs, so a
 * forwarded `sources add|sync` runs its sync in the server, past the command's end.
 */
export function startAdmin(
  dir: string,
  store: OpenedStore,
  log: (command: string, code: number) => void,
  onError: (error: unknown) => void = () => {},
  sources?: SourcesContext,
): AdminServer {
  const path = join(dir, ADMIN_SOCKET);
  const problem = socketPathProblem(dir);
  if (problem) throw new Error(problem);
  rmSync(path, { force: true });
  const shutdown = new AbortController();
  const server = Bun.serve({
    unix: path,
    async fetch(req, srv) {
      // A long ingest sends nothing until it ends: no idle cut-off for this request.
      srv.timeout(req, 0);
      const url = new URL(req.url);
      if (req.method === "GET" && url.pathname === "/ping") return new Response("ok");
      // `parley export|backup` while the server holds the folder: the archive, streamed.
      if (req.method === "GET" && url.pathname === "/export") {
        log("export", 0);
        return new Response(exportArchive(store), { headers: { "content-type": "application/gzip" } });
      }
      if (req.method !== "POST" || url.pathname !== "/run") return new Response("not found", { status: 404 });
      let body: unknown;
      try {
        body = await req.json();
      } catch {
        return Response.json({ error: 'the body must be JSON: {"argv": [strings]}' }, { status: 400 });
      }
      const argv = (body as { argv?: unknown } | null)?.argv;
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string"))
        return Response.json({ error: "argv must be strings" }, { status: 400 });
      const [command, ...rest] = argv as string[];
      if (!STORE_COMMANDS.includes(command as never))
        return Response.json({ error: `not a store command: ${command}` }, { status: 400 });
      const io = bufferIo();
      // The forwarding CLI's Ctrl-C closes the connection; shutdown stops commands too.
      const signal = AbortSignal.any([shutdown.signal, req.signal]);
      let code: number;
      try {
        code = await runStoreCommand(store, command!, rest, io, signal, sources);
      } catch (error) {
        io.err(`error: ${(error as Error).message}`);
        code = 1;
      }
      log(`${command}${(command === "keys" || command === "sources") && rest[0] ? ` ${rest[0]}` : ""}`, code);
      return Response.json({ code, stdout: io.stdout, stderr: io.stderr } satisfies Outcome);
    },
    // Anything unforeseen: a JSON answer and one log line, never Bun's HTML page (which shows the
    // exception and the working directory, and prints a multi-line stack into the JSON log).
    error(error) {
      onError(error);
      return Response.json({ error: "internal error in the admin socket" }, { status: 500 });
    },
  });
  chmodSync(path, 0o600); // the umask already made it so; say it explicitly
  return {
    path,
    stop() {
      shutdown.abort();
      void server.stop(false);
      rmSync(path, { force: true });
    },
  };
}

/** The archive of the store the server behind `dir`'s socket holds, as it streams it. */
export async function exportFrom(dir: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const res = await fetch("http://parley/export", {
    unix: join(dir, ADMIN_SOCKET),
    signal,
    timeout: false,
  } as RequestInit);
  if (!res.ok || !res.body) throw new Error(`the server refused the export: ${await res.text()}`);
  return res.body;
}

/** Whether the server behind `dir`'s socket answers within `ms`. */
export async function adminAnswers(dir: string, ms = 2_000): Promise<boolean> {
  try {
    const res = await fetch("http://parley/ping", { unix: join(dir, ADMIN_SOCKET), signal: AbortSignal.timeout(ms) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Runs `argv` on the server behind `dir`'s socket. Its path arguments are made absolute here
 * (the server reads the files, from its own working directory), its flags go as typed
 * (cli/args.ts). `signal` (Ctrl-C) abandons it; the server stops an ingest before its next batch.
 */
export async function forward(dir: string, argv: string[], signal?: AbortSignal): Promise<Outcome> {
  const sent = forServer(argv);
  const res = await fetch("http://parley/run", {
    unix: join(dir, ADMIN_SOCKET),
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ argv: sent }),
    signal,
    // An ingest may run for minutes.
    timeout: false,
  } as RequestInit);
  if (!res.ok) throw new Error(`the server refused the command: ${await res.text()}`);
  return (await res.json()) as Outcome;
}

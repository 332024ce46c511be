/**
 * Real Parley processes for tests: the CLI and the server as a user runs them, each on its own
 * PGlite folder (never DATABASE_URL: these also run, unchanged, in the PostgreSQL CI run).
 */
import { cpSync, existsSync, mkdtempSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const root = join(import.meta.dir, "../..");

type Log = Record<string, any>;

const procs: Bun.Subprocess[] = [];
const dirs: string[] = [];
/** Ends the processes a test started (tests/helpers/setup.ts runs it after each test). */
export async function killProcesses(): Promise<void> {
  for (const p of procs.splice(0)) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill("SIGCONT"); // a paused test server: SIGKILL ends it anyway; SIGCONT lets its pipes drain
      p.kill("SIGKILL");
    }
    await p.exited;
  }
}

/** A fresh temp folder, removed when the process exits. */
export function tempDir(prefix = "parley-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
process.on("exit", () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let template: Promise<string> | undefined;

/**
 * A data folder holding a migrated PGlite store, as `bun src/main.ts migrate` leaves it, copied
 * from one template made once per run: PGlite's initdb (4–6 s idle, over 20 s on a busy machine)
 * runs once, not in every test. Tests about a *new* folder (start-up, initdb) use tempDir().
 * The copy keeps the modes (folder 0700, files 0600), so it is what the server itself made.
 */
export async function dataDir(prefix = "parley-test-"): Promise<string> {
  const dir = tempDir(prefix);
  cpSync(await templateDataDir(), dir, { recursive: true });
  return dir;
}

/**
 * The run's template folder, made on first use. tests/helpers/setup.ts makes it before the
 * first process test, in a hook with its own long timeout: on a loaded machine initdb outlasts
 * a test's. Its `migrate` is not one of the test's processes (killProcesses leaves it alone),
 * and a failure is not kept: the next call tries again.
 */
export function templateDataDir(): Promise<string> {
  template ??= (async () => {
    const dir = tempDir("parley-template-");
    const proc = Bun.spawn(["bun", join(root, "src/main.ts"), "migrate"], {
      cwd: root,
      env: { ...baseEnv(), LOG_LEVEL: "warn", DATA_DIR: dir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`making the template data folder failed (exit ${code}): ${stderr}`);
    return dir;
  })().catch((e) => {
    template = undefined;
    throw e;
  });
  return template;
}

const baseEnv = () => ({
  PATH: process.env.PATH!,
  HOME: process.env.HOME ?? "/tmp",
  LOG_LEVEL: "info",
  HOST: "127.0.0.1",
  PORT: "0",
});

/** A process with its stdout JSON log lines collected as they come, and its stderr. */
export function launch(cmd: string[], env: Record<string, string>) {
  const proc = Bun.spawn(cmd, { cwd: root, env: { ...baseEnv(), ...env }, stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  const logs: Log[] = [];
  let notify = () => {};
  const stdout = (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        try {
          logs.push(JSON.parse(line));
        } catch {
          logs.push({ text: line });
        }
      }
      notify();
    }
    notify();
  })();
  let errText = "";
  const stderr = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      errText += decoder.decode(chunk, { stream: true });
      notify();
    }
    return errText + decoder.decode();
  })();
  /**
   * The first thing `find` finds, looked for again at each output; fails when the process ends
   * (or `ms` pass) without one, printing what it said. Generous by default: PGlite's initdb on a
   * new folder takes 3 s on an idle machine, over 15 s on a busy one.
   */
  async function waitFor<T>(find: () => T | undefined, what: string, ms: number): Promise<T> {
    const until = Date.now() + ms;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > until) {
        throw new Error(
          // What stderr holds so far: awaiting its end would hang on a process still running.
          `no such ${what}; exit ${proc.exitCode ?? proc.signalCode}\nstdout: ${JSON.stringify(logs)}\nstderr: ${errText}`,
        );
      }
      await Promise.race([new Promise<void>((r) => (notify = r)), proc.exited, Bun.sleep(100)]);
    }
  }
  /** The first log line (stdout) matching `match`. */
  const waitLog = (match: (l: Log) => unknown, ms = 60_000) => waitFor(() => logs.find(match), "log line", ms);
  /** The first whole stderr line matching `match`. */
  const waitErr = (match: (line: string) => unknown, ms = 60_000) =>
    waitFor(() => errText.split("\n").slice(0, -1).find(match), "stderr line", ms);
  const exited = async () => {
    await proc.exited;
    await stdout;
    return { code: proc.exitCode, signal: proc.signalCode, logs, stderr: await stderr };
  };
  return { proc, logs, waitLog, waitErr, exited };
}

/**
 * Resolves when `name` appears in `dir` (a lock file a process takes), told by the file system
 * (fs.watch) rather than by polling; rejects when `proc` ends first.
 */
export async function fileAppears(dir: string, name: string, proc: Bun.Subprocess): Promise<void> {
  const watcher = watch(dir);
  try {
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (existsSync(join(dir, name))) resolve();
        else if (proc.exitCode !== null || proc.signalCode !== null)
          reject(new Error(`the process ended before ${name}`));
      };
      watcher.on("change", check);
      void proc.exited.then(check);
      check(); // it may be there already
    });
  } finally {
    watcher.close();
  }
}

/** How long a test that starts real servers may take (each may run PGlite's initdb; see waitLog). */
export const PROCESS_TEST_MS = 120_000;

/** `bun src/main.ts serve` on `dir`, listening: its URL too. */
export async function startServer(dir: string, env: Record<string, string> = {}) {
  const srv = launch(["bun", "src/main.ts", "serve"], { DATA_DIR: dir, ...env });
  const { url } = await srv.waitLog((l) => l.msg === "listening");
  return { ...srv, url: url as string };
}

/** Runs the CLI to its end (`bun src/main.ts …`), from `cwd` (default: the repository). */
export async function cli(args: string[], env: Record<string, string> = {}, cwd = root) {
  const proc = Bun.spawn(["bun", join(root, "src/main.ts"), ...args], {
    cwd,
    env: { ...baseEnv(), LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  procs.push(proc);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/** Bench helpers: spawning servers, running wrk, reading /proc, medians. Loopback only. */
import type { Subprocess } from "bun";

export const ROOT = new URL("..", import.meta.url).pathname;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

/** A server process started by the bench; it prints `ready <port>` when it listens. */
export interface Server {
  proc: Subprocess;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Every server still running, so a failed run does not leave processes behind. */
export const running = new Set<Server>();

/** Starts `script` of this checkout, or of another one (`cwd`: a baseline for before/after). */
export async function startServer(script: string, env: Record<string, string>, cwd = ROOT): Promise<Server> {
  const proc = Bun.spawn(["bun", script], {
    cwd,
    env: { ...process.env, LOG_LEVEL: "error", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 60_000;
  while (!/ready (\d+)/.test(out)) {
    if (Date.now() > deadline) throw new Error(`${script} did not start: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const port = /ready (\d+)/.exec(out)![1];
  const server: Server = {
    proc,
    pid: proc.pid,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      running.delete(server);
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(15_000).then(() => proc.kill("SIGKILL"))]);
    },
  };
  running.add(server);
  return server;
}

/** Requests/s and latency percentiles from one wrk run. */
export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
}

const toMs = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

export function wrk(
  url: string,
  o: {
    seconds: number;
    connections: number;
    headers?: Record<string, string>;
    script?: string;
    env?: Record<string, string>;
  },
): WrkResult {
  const args = ["wrk", "-t1", `-c${o.connections}`, `-d${o.seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (o.script) args.push("-s", o.script);
  args.push(url);
  const r = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...o.env } });
  const out = r.stdout.toString();
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  if (!rps || !p50 || !p99) throw new Error(`wrk output not understood:\n${out}\n${r.stderr}`);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} non-2xx responses for ${url}`);
  return { rps: Number(rps[1]), p50: toMs(p50[1]!, p50[2]!), p99: toMs(p99[1]!, p99[2]!) };
}

/** Runs `a` and `b` alternately `rounds` times; medians of each. */
export function sideBySide(rounds: number, a: () => WrkResult, b: () => WrkResult) {
  const ra: WrkResult[] = [];
  const rb: WrkResult[] = [];
  // A warm-up of each (JIT, caches, pools) is discarded, and the order alternates round by round
  // (ab, ba, ab, …): whichever ran first was measurably favoured or penalised (an A/A run of two
  // identical servers, always in the same order, gave 0.72).
  a();
  b();
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      ra.push(a());
      rb.push(b());
    } else {
      rb.push(b());
      ra.push(a());
    }
  }
  const med = (rs: WrkResult[]) => ({
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
  });
  return { a: med(ra), b: med(rb) };
}

/** Runs each load in turn, `rounds` times over; the medians of each, in order. */
export function alternate(rounds: number, loads: (() => WrkResult)[]): WrkResult[] {
  const runs = loads.map(() => [] as WrkResult[]);
  // As in sideBySide: a discarded warm-up of each, then the order rotates round by round.
  for (const load of loads) load();
  for (let i = 0; i < rounds; i++)
    for (let k = 0; k < loads.length; k++) {
      const j = (k + i) % loads.length;
      runs[j]!.push(loads[j]!());
    }
  return runs.map((rs) => ({
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
  }));
}

/** CPU seconds (user + system) a process has used so far. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = (await Bun.file(`/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
  return (Number(stat[11]) + Number(stat[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

export async function rssKiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

export function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  console.log("wrk not found: installing it from Debian's packages (apt-get install wrk)");
  const r = Bun.spawnSync(["sh", "-c", "apt-get update -qq && apt-get install -y -qq wrk"], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if (r.exitCode !== 0 || !Bun.which("wrk")) throw new Error("the bench needs wrk: apt-get install wrk");
}

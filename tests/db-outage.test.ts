/**
 * PostgreSQL outages and request time: through the outage proxy
 * (tests/helpers/tcp-proxy.ts) the database goes away and comes back, 13 rounds, while 9
 * clients keep sending requests (tests/fixtures/outage-run.ts, in its own process). No request
 * may outlive the documented bound on its database wait, every failure is a 503, and the pool
 * heals: requests are served again after the last round. PostgreSQL only.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { DB_WAIT_MS } from "../src/db/bounded-pool.ts";
import { root } from "./helpers/process.ts";
import { onPostgres } from "./helpers/store.ts";

setDefaultTimeout(180_000);

/**
 * The documented bound (docs/reliability.md): one statement waits at most DB_WAIT_MS; a request
 * that meets the outage fails at that statement (a request's statements run one after another,
 * and one that straddles an outage's end can spend one bound before it, plus its own work).
 */
const BOUND_MS = DB_WAIT_MS + 1_000;

describe.skipIf(!onPostgres)("PostgreSQL outages (outage proxy)", () => {
  test("13 outage rounds under load: no request outlives the database wait bound, and the pool heals", async () => {
    const proc = Bun.spawn(["bun", "tests/fixtures/outage-run.ts"], {
      cwd: root,
      env: { PATH: process.env.PATH!, DATABASE_URL: process.env.DATABASE_URL! },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect(await proc.exited, err).toBe(0);
    const { durations, stray, healMs } = JSON.parse(out.trim().split("\n").pop()!) as {
      durations: { ms: number; status: number; what: string }[];
      stray: number;
      /** How long after the last outage every client had been served again (null: not within 20 s). */
      healMs: number | null;
    };
    const by = (s: number) => durations.filter((d) => d.status === s).length;
    const worst = durations.reduce((a, b) => (b.ms > a.ms ? b : a));
    console.log(
      `outage: ${durations.length} requests (${by(200)}×200, ${by(503)}×503); worst ${worst.ms} ms (${worst.what} ${worst.status}); ${stray} unobserved driver error(s); healed ${healMs} ms after the last outage`,
    );
    expect(durations.filter((d) => d.status !== 200 && d.status !== 503)).toEqual([]);
    expect(by(503)).toBeGreaterThan(0);
    expect(worst.ms).toBeLessThan(BOUND_MS);
    // Healed: each client served again within the bound of a statement or two after the last outage.
    expect(healMs).not.toBeNull();
    expect(healMs!).toBeLessThan(2 * BOUND_MS);
  });
});

/**
 * `bun bench/operations.ts`: what usage counting and metrics cost a request. Two servers, each on
 * its own throwaway PostgreSQL database: "on" as shipped with METRICS_TOKEN set (metrics
 * recorded, usage triggers counting), "off" without METRICS_TOKEN and with the usage triggers
 * disabled (rate_limits_close_day, messages_count_turn: requests are the limiter's own day count since
 * drizzle/0018, so nothing else counts them). wrk, a warm-up then 5 rounds of 4 s each in alternating order; medians. Prints a
 * Markdown block for bench/results.md. Loopback only.
 */
import { join } from "node:path";
import postgres from "postgres";
import { createKey } from "../src/auth/keys-admin.ts";
import { openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { ensureWrk, ROOT, running, sideBySide, startServer, wrk } from "./lib.ts";

ensureWrk();
const admin = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const adminSql = postgres(admin, { max: 1, onnotice: () => {} });
const names = [`parley_ops_on_${process.pid}`, `parley_ops_off_${process.pid}`];
const big = { plan: "enterprise" as const, rpm: 1_000_000_000, rpd: 1_000_000_000 };

async function prepare(name: string, counting: boolean) {
  await adminSql.unsafe(`create database ${name}`);
  const url = admin.replace(/\/[^/]*$/, `/${name}`);
  const store = openPostgres(url, { max: 2 });
  await migrate(store);
  const { secret } = await createKey(store.db, { name: "bench", ...big });
  await store.close();
  if (!counting) {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql`alter table rate_limits disable trigger rate_limits_close_day`;
    await sql`alter table messages disable trigger messages_count_turn`;
    await sql.end();
  }
  return { url, key: secret };
}

const result: Record<string, unknown> = {};
try {
  // BENCH_AA=1: both servers "off", to see the noise (and any bias of the order) of this machine.
  const aa = process.env.BENCH_AA === "1";
  const on = await prepare(names[0]!, !aa);
  const off = await prepare(names[1]!, false);
  const sOn = await startServer("bench/server.ts", {
    DATABASE_URL: on.url,
    ...(aa ? {} : { METRICS_TOKEN: "bench-metrics-token-0123" }),
    BENCH_AGENT: "instant:20",
  });
  const sOff = await startServer("bench/server.ts", { DATABASE_URL: off.url, BENCH_AGENT: "instant:20" });
  const auth = (k: string) => ({ authorization: `Bearer ${k}` });
  const list = (s: { url: string }, k: string) => () =>
    wrk(`${s.url}/v1/conversations?limit=20`, { seconds: 4, connections: 16, headers: auth(k) });
  const chat = (s: { url: string }, k: string) => () =>
    wrk(`${s.url}/v1/chat`, { seconds: 4, connections: 16, headers: auth(k), script: join(ROOT, "bench/chat.lua") });
  const l = sideBySide(5, list(sOn, on.key), list(sOff, off.key));
  const c = sideBySide(5, chat(sOn, on.key), chat(sOff, off.key));
  const scrape = await fetch(`${sOn.url}/metrics`, { headers: auth("bench-metrics-token-0123") });
  result.list = { on: l.a, off: l.b, rpsRatio: l.a.rps / l.b.rps };
  result.chat = { on: c.a, off: c.b, rpsRatio: c.a.rps / c.b.rps };
  result.metricsBytes = (await scrape.text()).length;
  await Promise.all([sOn.stop(), sOff.stop()]);
} finally {
  for (const s of running) await s.stop();
  for (const n of names) await adminSql.unsafe(`drop database if exists ${n} with (force)`);
  await adminSql.end();
}
const r = result as Record<
  "list" | "chat",
  { on: { rps: number; p99: number }; off: { rps: number; p99: number }; rpsRatio: number }
>;
const row = (name: string, x: (typeof r)["list"]) =>
  `| ${name} | ${x.off.rps.toFixed(0)} | ${x.on.rps.toFixed(0)} | **${x.rpsRatio.toFixed(3)}** | ${x.off.p99.toFixed(2)} | ${x.on.p99.toFixed(2)} |`;
console.log(JSON.stringify(result));
console.log(`
| workload (PostgreSQL, 16 connections) | off req/s | on req/s | on/off | off p99 ms | on p99 ms |
| --- | --- | --- | --- | --- | --- |
${row("GET /v1/conversations (limiter + usage trigger)", r.list)}
${row("POST /v1/chat, 20-token reply (+ turn trigger, reply metrics)", r.chat)}
`);

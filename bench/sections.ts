/** The longer bench sections: streaming, pagination depth, chat vs the database floor. */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import { findKeyBySecret } from "../src/auth/keys.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import type { Store } from "../src/db/client.ts";
import { openPglite } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { encodeCursor } from "../src/http/cursor.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { parseJsonl } from "../src/knowledge/parse.ts";
import { searchQueryText } from "../src/knowledge/search.ts";
import { cpuSeconds, median, percentile, ROOT, rssKiB, type Server, sideBySide, startServer, wrk } from "./lib.ts";

const big = { plan: "enterprise" as const, rpm: 1_000_000_000, rpd: 1_000_000_000 };
const chatReq = (url: string, key: string, body: object) =>
  fetch(`${url}/v1/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

export async function benchStreaming(dbUrl: string, key: string) {
  const instant = await startServer("bench/server.ts", { DATABASE_URL: dbUrl, BENCH_AGENT: "instant:1000" });
  const rates: number[] = [];
  await (await chatReq(instant.url, key, { message: "warm", stream: true })).text();
  const cpu0 = await cpuSeconds(instant.pid);
  const replies = 30;
  for (let i = 0; i < replies; i++) {
    const t0 = performance.now(); // request to last byte: what a client waits for the whole reply
    const res = await chatReq(instant.url, key, { message: "go", stream: true });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (!text.includes('"type":"end"')) throw new Error("stream did not end");
    rates.push(1000 / (ms / 1000));
  }
  const cpuPerTokenUs = (((await cpuSeconds(instant.pid)) - cpu0) / (replies * 1000)) * 1e6;
  await instant.stop();

  // The goals are stated at 10,000 streams; BENCH_STREAMS picks another count while working.
  const streams = Number(process.env.BENCH_STREAMS ?? 10_000);
  const parley = await holdStreams(
    await startServer("bench/server.ts", { DATABASE_URL: dbUrl, BENCH_AGENT: "hold", KEEPALIVE_MS: "1000" }),
    key,
    streams,
  );
  const floor = await holdStreams(await startServer("bench/floor-stream.ts", {}), key, streams);
  return { tokensPerSecond: median(rates), serverCpuPerTokenUs: cpuPerTokenUs, idleStreams: streams, parley, floor };
}

/** Opens `n` streams on a server whose replies wait for SIGUSR2; RSS per stream and broadcast delays. */
async function holdStreams(server: Server, key: string, n: number) {
  await Bun.sleep(500);
  const settledRss = async () => {
    server.proc.kill("SIGUSR1"); // the servers collect garbage on SIGUSR1
    await Bun.sleep(300);
    return rssKiB(server.pid);
  };
  const rssBefore = await settledRss();
  // Several client processes: one process parsing 1,000 streams measures itself, not the server.
  const procs = 4;
  const clients = Array.from({ length: procs }, () =>
    Bun.spawn(["bun", "bench/stream-clients.ts", server.url, key, String(n / procs)], {
      cwd: ROOT,
      env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "4096" },
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const readers = clients.map((c) => ({ reader: c.stdout.getReader(), out: "" }));
  const until = async (r: (typeof readers)[number], text: string) => {
    while (!r.out.includes(text)) {
      const { value, done } = await r.reader.read();
      if (done) break;
      r.out += new TextDecoder().decode(value);
    }
  };
  await Promise.all(readers.map((r) => until(r, "open\n")));
  await Bun.sleep(2_500); // a couple of keep-alive rounds while idle
  const rssHeld = await settledRss();
  server.proc.kill("SIGUSR2");
  await Promise.all(readers.map((r) => until(r, "delays")));
  const delays = readers.flatMap((r) => (JSON.parse(r.out.slice(r.out.indexOf("{"))) as { delays: number[] }).delays);
  await server.stop();
  return {
    rssPerIdleStreamKiB: (rssHeld - rssBefore) / n,
    broadcastDelayMs: { p50: percentile(delays, 50), p99: percentile(delays, 99), received: delays.length },
  };
}

export async function benchPagination(dbUrl: string, sql: postgres.Sql, store: Store) {
  const { secret } = await createKey(store.db, { name: "pages", ...big });
  const { id: keyId } = (await findKeyBySecret(store.db, secret))!;
  const base = Date.UTC(2025, 0, 1);
  const n = 200_000;
  const id = (i: number) => `conv_0${String(i).padStart(25, "0")}`;
  await sql`insert into conversations (id, key_id, title, created_at, updated_at)
    select 'conv_0' || lpad(i::text, 25, '0'), ${keyId}, 'c' || i, to_timestamp((${base}::bigint + i) / 1000.0), to_timestamp((${base}::bigint + i) / 1000.0)
    from generate_series(1, ${n}) i`;
  await sql`analyze conversations`;
  // Newest first: the row 190,000 from the top is i = n - 190,000 + 1.
  const at = n - 190_000 + 1;
  const cursor = await encodeCursor(store.db, { createdAt: base + at, id: id(at) });
  const server = await startServer("bench/server.ts", { DATABASE_URL: dbUrl, RATE_LIMIT: "off" });
  const auth = { authorization: `Bearer ${secret}` };
  const page = (q: string) => () =>
    wrk(`${server.url}/v1/conversations?limit=20${q}`, { seconds: 3, connections: 4, headers: auth });
  const r = sideBySide(3, page(""), page(`&cursor=${cursor}`));
  await server.stop();
  const plan = await sql.unsafe(
    `explain select * from conversations where key_id = $1 and (created_at, id) < ($2::timestamptz, $3) order by created_at desc, id desc limit 21`,
    [keyId, new Date(base + at).toISOString(), id(at)],
  );
  return {
    rows: n,
    first: r.a,
    deep: r.b,
    p50Ratio: r.b.p50 / r.a.p50,
    p99Ratio: r.b.p99 / r.a.p99,
    plan: plan.map((p) => p["QUERY PLAN"]),
  };
}

/** The writes one chat makes, straight through the driver (the database's own floor). */
async function floorLoop(write: (i: number) => Promise<void>, seconds: number, concurrency: number) {
  const lat: number[] = [];
  const until = performance.now() + seconds * 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await write(i++);
        lat.push(performance.now() - t0);
      }
    }),
  );
  return { rps: lat.length / seconds, p50: percentile(lat, 50), p99: percentile(lat, 99) };
}

/**
 * A baseline checkout's server (BENCH_BASELINE) on a PostgreSQL database of its own, set up by
 * its own CLI (migrate, ingest the corpus, an enterprise key): the "before" of a before/after.
 */
async function baselineChatServer(baseline: string, url: string, corpus: string) {
  const env = { ...(process.env as Record<string, string>), DATABASE_URL: url, LOG_LEVEL: "error" };
  const cli = (args: string[]) => {
    const r = Bun.spawnSync(["bun", "src/main.ts", ...args], { cwd: baseline, env, stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`baseline ${args[0]} failed: ${r.stderr.toString().slice(-1000)}`);
    return r.stdout.toString().trim();
  };
  cli(["migrate"]);
  cli(["ingest", corpus]);
  const key = cli([
    "keys",
    "create",
    "--name",
    "chat",
    "--plan",
    "enterprise",
    "--rpm",
    "1000000000",
    "--rpd",
    "1000000000",
  ]);
  return { server: await startServer("bench/server.ts", { DATABASE_URL: url }, baseline), key };
}

export async function benchChatFloor(
  dbUrl: string,
  sql: postgres.Sql,
  store: Store,
  tmp: string,
  baseline?: { checkout: string; dbUrl: string },
) {
  const corpus = join(ROOT, "../shared/corpora/elysia-docs.jsonl");
  const { docs } = parseJsonl(readFileSync(corpus, "utf8"), corpus);
  await ingestDocuments(store.db, docs);
  const { secret } = await createKey(store.db, { name: "chat", ...big });
  const { id: keyId } = (await findKeyBySecret(store.db, secret))!;
  const lua = join(ROOT, "bench/chat.lua");

  // The floor searches too, with the very statement the agent runs (chat.lua's questions), so
  // the ratio measures Parley and not the search.
  const questions = [
    "How do I validate a request body?",
    "How do I stream server-sent events?",
    "How do lifecycle hooks work?",
    "How do I deploy to Cloudflare Workers?",
  ];
  const searches = questions.map((q) => searchQueryText(q));
  const pgWrites = async (i: number) => {
    const conv = `conv_7${String(i).padStart(25, "0")}`;
    const now = new Date();
    const search = searches[i % searches.length]!;
    // Unprepared, as Parley runs it (db/rows.ts: its plan must follow the data's size).
    await sql.unsafe(search.sql, search.params as string[]);
    await sql`insert into conversations (id, key_id, title, created_at, updated_at) values (${conv}, ${keyId}, 'floor', ${now}, ${now})`;
    await sql`insert into messages (id, conversation_id, role, content, sources, status, created_at) values (${`msg_a${i}`}, ${conv}, 'user', 'q', '[]', 'completed', ${now})`;
    await sql`update conversations set updated_at = ${now} where id = ${conv}`;
    await sql`insert into messages (id, conversation_id, role, content, sources, status, created_at) values (${`msg_b${i}`}, ${conv}, 'assistant', 'a', '[]', 'completed', ${now})`;
    await sql`update conversations set updated_at = ${now} where id = ${conv}`;
  };
  const chat = (url: string, key: string) =>
    wrk(`${url}/v1/chat`, { seconds: 5, connections: 8, headers: { authorization: `Bearer ${key}` }, script: lua });
  const server = await startServer("bench/server.ts", { DATABASE_URL: dbUrl });
  const chatPg = chat(server.url, secret);
  await server.stop();
  const floorPg = await floorLoop(pgWrites, 5, 8);
  // One server at a time: each holds a pool of connections.
  const before = baseline && (await baselineChatServer(baseline.checkout, baseline.dbUrl, corpus));
  const beforePg = before && chat(before.server.url, before.key);
  await before?.server.stop();

  // PGlite: the server owns its folder; the floor gets a folder of its own, used in process.
  const dataDir = join(tmp, "pglite-server");
  const seed = await openPglite(dataDir);
  await migrate(seed);
  await ingestDocuments(seed.db, docs);
  const { secret: liteKey } = await createKey(seed.db, { name: "chat", ...big });
  await seed.close();
  const lite = await startServer("bench/server.ts", { DATA_DIR: dataDir });
  const chatLite = wrk(`${lite.url}/v1/chat`, {
    seconds: 5,
    connections: 8,
    headers: { authorization: `Bearer ${liteKey}` },
    script: lua,
  });
  await lite.stop();
  const floorStore = await openPglite(join(tmp, "pglite-floor"));
  await migrate(floorStore);
  await ingestDocuments(floorStore.db, docs);
  const { secret: floorKey } = await createKey(floorStore.db, { name: "floor", ...big });
  const { id: floorKeyId } = (await findKeyBySecret(floorStore.db, floorKey))!;
  const pg = (floorStore.db as unknown as { $client: { query(q: string, p: unknown[]): Promise<unknown> } }).$client;
  const liteWrites = async (i: number) => {
    const conv = `conv_7${String(i).padStart(25, "0")}`;
    const now = new Date().toISOString();
    const search = searches[i % searches.length]!;
    await pg.query(search.sql, search.params);
    await pg.query(
      "insert into conversations (id, key_id, title, created_at, updated_at) values ($1, $2, 'floor', $3, $3)",
      [conv, floorKeyId, now],
    );
    await pg.query(
      "insert into messages (id, conversation_id, role, content, sources, status, created_at) values ($1, $2, 'user', 'q', '[]', 'completed', $3)",
      [`msg_a${i}`, conv, now],
    );
    await pg.query("update conversations set updated_at = $1 where id = $2", [now, conv]);
    await pg.query(
      "insert into messages (id, conversation_id, role, content, sources, status, created_at) values ($1, $2, 'assistant', 'a', '[]', 'completed', $3)",
      [`msg_b${i}`, conv, now],
    );
    await pg.query("update conversations set updated_at = $1 where id = $2", [now, conv]);
  };
  const floorLite = await floorLoop(liteWrites, 5, 1);
  await floorStore.close();
  return {
    postgres: {
      parley: chatPg,
      floor: floorPg,
      rpsRatio: chatPg.rps / floorPg.rps,
      before: beforePg ? { parley: beforePg, rpsRatio: beforePg.rps / floorPg.rps } : undefined,
    },
    pglite: { parley: chatLite, floor: floorLite, rpsRatio: chatLite.rps / floorLite.rps },
  };
}

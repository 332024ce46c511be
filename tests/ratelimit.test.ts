/** Plans and limits: sliding minute, UTC day, headers, concurrency, two instances, store outage. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { updateKey } from "../src/auth/keys-admin.ts";
import { openPostgres } from "../src/db/client.ts";
import { expectError, expectStatus, harness, keyIdOf, type Reply, read } from "./helpers/app.ts";
import { clocked, NOON } from "./helpers/clocked.ts";
import { migratedPglite, onPostgres, pgliteImage, secondStore } from "./helpers/store.ts";
import { TcpProxy } from "./helpers/tcp-proxy.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const list = "/v1/conversations?limit=1";
const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

describe("per-minute sliding window", () => {
  test("free: 20 pass, the 21st is 429 rate_limit_exceeded; Retry-After is exact", async () => {
    const { h, clock } = await clocked();
    const key = await h.key("free");
    for (let i = 0; i < 20; i++) {
      clock.t += 100;
      expectStatus(await h.call("GET", list, { key }), 200);
    }
    clock.t += 100;
    const refused = await h.call("GET", list, { key });
    expectError(refused, 429, "rate_limit_exceeded");
    expect(refused.json.error.type).toBe("rate_limit_error");
    const retry = Number(refused.headers.get("retry-after"));
    // The first request (at NOON+100) leaves the window at NOON+60100; now is NOON+2100.
    expect(retry).toBe(58);
    clock.t += retry * 1000 - 1000;
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
    clock.t += 1000;
    expectStatus(await h.call("GET", list, { key }), 200);
  });

  test("no fixed-minute boundary: never more than the limit in any rolling 60 s", async () => {
    const { h, clock } = await clocked(Date.UTC(2026, 5, 1, 12, 0, 50));
    const key = await h.key("free");
    for (let i = 0; i < 20; i++) expectStatus(await h.call("GET", list, { key }), 200); // at :50
    clock.t += 15_000; // 12:01:05 — a new clock minute, same rolling window
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
    clock.t += 45_000; // exactly 60 s after the burst: those hits have left the window
    for (let i = 0; i < 20; i++) expectStatus(await h.call("GET", list, { key }), 200);
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
  });

  test("pro: 100 per minute", async () => {
    const { h } = await clocked();
    const key = await h.key("pro");
    for (let i = 0; i < 100; i++) expectStatus(await h.call("GET", list, { key }), 200);
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
  });

  test("every authenticated request counts, whatever its outcome", async () => {
    const { h } = await clocked();
    const key = await h.key("enterprise", { rpm: 3, rpd: 100 });
    expectError(await h.call("GET", "/v1/conversations?limit=0", { key }), 400, "invalid_request");
    expectError(await h.call("GET", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", { key }), 404, "not_found");
    expectError(await h.call("POST", "/v1/chat", { key, json: {} }), 400, "invalid_request");
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
  });
});

describe("per-day quota", () => {
  test("quota reached → daily_quota_exceeded until midnight UTC; the next day is allowed", async () => {
    const { h, clock } = await clocked(Date.UTC(2026, 5, 1, 23, 0, 0));
    const key = await h.key("enterprise", { rpm: 1000, rpd: 5 });
    for (let i = 0; i < 5; i++) expectStatus(await h.call("GET", list, { key }), 200);
    const refused = await h.call("GET", list, { key });
    expectError(refused, 429, "daily_quota_exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBe(3600);
    clock.t = Date.UTC(2026, 5, 2, 0, 0, 0);
    const next = await h.call("GET", list, { key });
    expectStatus(next, 200);
    expect(next.headers.get("ratelimit")).toContain('"day";r=4;');
  });

  test("refused requests do not count against the day", async () => {
    const { h, clock } = await clocked();
    const key = await h.key("enterprise", { rpm: 2, rpd: 3 });
    expectStatus(await h.call("GET", list, { key }), 200);
    expectStatus(await h.call("GET", list, { key }), 200);
    for (let i = 0; i < 5; i++) expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
    clock.t += 61_000;
    expectStatus(await h.call("GET", list, { key }), 200); // the 3rd admitted of the day
    expectError(await h.call("GET", list, { key }), 429, "daily_quota_exceeded");
  });
});

describe("edges", () => {
  test("a day refusal's Retry-After also waits out a minute that is still full after midnight", async () => {
    const { h, clock } = await clocked(Date.UTC(2026, 5, 1, 23, 59, 59, 400));
    const key = await h.key("enterprise", { rpm: 2, rpd: 2 });
    expectStatus(await h.call("GET", list, { key }), 200);
    clock.t += 100;
    expectStatus(await h.call("GET", list, { key }), 200);
    clock.t += 100; // 23:59:59.600: both windows are spent
    const refused = await h.call("GET", list, { key });
    expectError(refused, 429, "daily_quota_exceeded");
    // The minute frees a slot at 00:00:59.400, not at midnight.
    const retry = Number(refused.headers.get("retry-after"));
    expect(retry).toBe(60);
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(Date.UTC(2026, 5, 2) / 1000));
    clock.t += retry * 1000;
    expectStatus(await h.call("GET", list, { key }), 200);
  });

  test("when the last request spends both windows, X-RateLimit-* point at the one that frees later", async () => {
    const { h } = await clocked();
    const key = await h.key("enterprise", { rpm: 2, rpd: 2 });
    expectStatus(await h.call("GET", list, { key }), 200);
    const last = await h.call("GET", list, { key });
    expectStatus(last, 200);
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(last.headers.get("x-ratelimit-limit")).toBe("2");
    expect(last.headers.get("x-ratelimit-reset")).toBe(String(Date.UTC(2026, 5, 2) / 1000)); // midnight, not NOON + 60
  });

  test("instances whose clocks straddle midnight cannot reset each other's day count", async () => {
    const early = { t: Date.UTC(2026, 5, 1, 23, 59, 59) };
    const late = { t: Date.UTC(2026, 5, 2, 0, 0, 1) }; // 2 s ahead: already the next day
    const a = await harness({ now: () => late.t });
    const b = await harness({ now: () => early.t, store: a.store });
    const key = await a.key("enterprise", { rpm: 1_000, rpd: 5 });
    const replies = [];
    for (let i = 0; i < 10; i++) replies.push(await (i % 2 ? b : a).call("GET", list, { key }));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of replies.filter((r) => r.status !== 200)) expectError(r, 429, "daily_quota_exceeded");
  });

  test("an instance whose clock lags counts its requests in the newest bucket: longer, never shorter", async () => {
    const ahead = { t: NOON };
    const behind = { t: NOON - 5_000 };
    const a = await harness({ now: () => ahead.t });
    const b = await harness({ now: () => behind.t, store: a.store });
    const key = await a.key("free");
    for (let i = 0; i < 10; i++) expectStatus(await a.call("GET", list, { key }), 200);
    for (let i = 0; i < 10; i++) expectStatus(await b.call("GET", list, { key }), 200);
    expectError(await b.call("GET", list, { key }), 429, "rate_limit_exceeded");
    // Stamped by b's clock, b's requests would have left a's window at NOON + 55 s; they count
    // in a's newer bucket, until NOON + 60 s.
    ahead.t = NOON + 59_999;
    expectError(await a.call("GET", list, { key }), 429, "rate_limit_exceeded");
    ahead.t = NOON + 60_000;
    for (let i = 0; i < 20; i++) expectStatus(await a.call("GET", list, { key }), 200);
    expectError(await a.call("GET", list, { key }), 429, "rate_limit_exceeded");
  });

  test("a new plan drops the limits the key had under its old one", async () => {
    const { h } = await clocked();
    const key = await h.key("enterprise", { rpm: 5_000, rpd: 9_000_000 });
    const keyId = await keyIdOf(h.store, key);
    expect(await updateKey(h.store.db, keyId, { plan: "free" })).toBe(true);
    const r = await h.call("GET", list, { key });
    expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=20;w=60, "day";q=1000;w=86400');
    await expect(updateKey(h.store.db, keyId, { plan: "enterprise" })).rejects.toThrow(/rpm and rpd/);
  });
});

describe("headers", () => {
  test("RateLimit-Policy, RateLimit and X-RateLimit-* follow the counts", async () => {
    const { h, clock } = await clocked();
    const key = await h.key("free");
    let r: Reply | undefined;
    for (let i = 1; i <= 5; i++) {
      r = await h.call("GET", list, { key });
      expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=20;w=60, "day";q=1000;w=86400');
      expect(r.headers.get("ratelimit")).toBe(`"minute";r=${20 - i};t=60, "day";r=${1000 - i};t=43200`);
      expect(r.headers.get("x-ratelimit-limit")).toBe("20");
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(20 - i));
      expect(r.headers.get("x-ratelimit-reset")).toBe(String(NOON / 1000 + 60));
      expect(r.headers.get("retry-after")).toBeNull();
    }
    clock.t += 10_000;
    r = await h.call("GET", list, { key });
    expect(r.headers.get("ratelimit")).toStartWith(`"minute";r=14;t=50,`);
    // Errors after the limiter carry the headers too.
    const notFound = await h.call("GET", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", { key });
    expect(notFound.headers.get("x-ratelimit-remaining")).toBe("13");
  });

  test("a 429 carries the headers with remaining 0", async () => {
    const { h } = await clocked();
    const key = await h.key("enterprise", { rpm: 1, rpd: 10 });
    await h.call("GET", list, { key });
    const r = await h.call("GET", list, { key });
    expectError(r, 429, "rate_limit_exceeded");
    expect(r.headers.get("ratelimit")).toStartWith('"minute";r=0;t=60,');
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(r.headers.get("retry-after")).toBe("60");
  });
});

describe("atomicity", () => {
  test("200 parallel requests on a key with limit 50 → exactly 50 admitted", async () => {
    const h = await harness();
    const key = await h.key("enterprise", { rpm: 50, rpd: 10_000 });
    const replies = await Promise.all(Array.from({ length: 200 }, () => h.call("GET", list, { key })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(150);
  });

  test("two instances (two servers, two connection pools, one database) admit exactly the limit together", async () => {
    const a = await harness();
    const b = await harness({ store: await secondStore() });
    if (b.store !== a.store) closers.push(() => b.store.close());
    const key = await a.key("enterprise", { rpm: 50, rpd: 10_000 });
    const servers = [
      a.app.listen({ port: 0, hostname: "127.0.0.1" }),
      b.app.listen({ port: 0, hostname: "127.0.0.1" }),
    ];
    closers.push(...servers.map((s) => () => s.stop()));
    const urls = servers.map((s) => `http://127.0.0.1:${s.server!.port}${list}`);
    const replies = await Promise.all(
      Array.from({ length: 160 }, (_, i) =>
        fetch(urls[i % 2]!, { headers: { authorization: `Bearer ${key}` } }).then(read),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(50);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(110);
    // Each instance answered its half (which one admits is up to the race).
    for (const s of [0, 1])
      expect(replies.filter((r, i) => i % 2 === s && [200, 429].includes(r.status))).toHaveLength(80);
  });
});

describe("limiter store failure", () => {
  // A fresh PGlite comes from the run's image: made here, outside any test's timeout.
  beforeAll(() => pgliteImage(), 300_000);

  test("an unreachable database → 503 service_unavailable, never a silent pass", async () => {
    const dead = openPostgres("postgres://postgres@127.0.0.1:1/none", { max: 1 });
    closers.push(() => dead.close());
    const h = await harness({ store: dead });
    const r = await h.call("GET", list, { key: "prl_0000000000000000000000000000000000000000000" });
    expectError(r, 503, "service_unavailable");
  });

  test("a closed PGlite → 503", async () => {
    const store = await migratedPglite();
    const h = await harness({ store });
    const key = await h.key("free");
    expectStatus(await h.call("GET", list, { key }), 200);
    await store.close();
    expectError(await h.call("GET", list, { key }), 503, "service_unavailable");
  });

  test("the limiter's own statement failing (key lookup fine) → 503, never a silent pass; served once it works", async () => {
    const h = await harness();
    const key = await h.key("free");
    const keyId = await keyIdOf(h.store, key);
    // A read-only standby or a full disk fails only the write: make exactly this key's write fail.
    const fn = `parley_test_fail_${keyId}`;
    await h.store.db.execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception 'cannot write' using errcode = '25006'; end $$`),
    );
    await h.store.db.execute(
      sql.raw(`create trigger ${fn} before insert or update on rate_limits
      for each row when (new.key_id = '${keyId}') execute function ${fn}()`),
    );
    try {
      const refused = await h.call("GET", list, { key });
      expectError(refused, 503, "service_unavailable");
      expect(refused.json.error.message).toContain("rate limiter");
    } finally {
      await h.store.db.execute(sql.raw(`drop trigger ${fn} on rate_limits`));
      await h.store.db.execute(sql.raw(`drop function ${fn}()`));
    }
    expectStatus(await h.call("GET", list, { key }), 200);
  });

  test.skipIf(!onPostgres)("PostgreSQL outage: 503 while down, served again once it is back", async () => {
    const url = new URL(process.env.DATABASE_URL!);
    const proxy = new TcpProxy({ hostname: url.hostname, port: Number(url.port || 5432) });
    proxy.up();
    url.host = `127.0.0.1:${proxy.port}`;
    const store = openPostgres(url.toString(), { max: 2 });
    // A graceful end through the cut proxy would wait out postgres.js's 5 s timeout: don't wait.
    closers.push(
      () => void store.close(),
      () => proxy.down(),
    );
    const h = await harness({ store });
    const key = await h.key("free");
    expectStatus(await h.call("GET", list, { key }), 200);
    proxy.down();
    expectError(await h.call("GET", list, { key }), 503, "service_unavailable");
    proxy.up();
    expectStatus(await h.call("GET", list, { key }), 200);
  });
});

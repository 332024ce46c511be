/**
 * The limiter under volume: over a thousand requests in sequence per test (the 1 s buckets above
 * EXACT_LOG_MAX per minute, a free key's whole day). The rules are in tests/ratelimit.test.ts.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { updateKey } from "../../src/auth/keys-admin.ts";
import { rateLimits } from "../../src/db/schema.ts";
import { EXACT_LOG_MAX } from "../../src/ratelimit/service.ts";
import { expectError, expectStatus, keyIdOf } from "../helpers/app.ts";
import { clocked, NOON } from "../helpers/clocked.ts";

setDefaultTimeout(120_000); // volume tests, not timing ones

const list = "/v1/conversations?limit=1";

describe("high limits (1 s buckets above EXACT_LOG_MAX per minute)", () => {
  test("the limit holds, Retry-After covers the bucket, and the row stays small", async () => {
    const { h, clock } = await clocked(NOON + 100);
    const rpm = EXACT_LOG_MAX + 1;
    const key = await h.key("enterprise", { rpm, rpd: 1_000_000 });
    const keyId = await keyIdOf(h.store, key);
    for (let i = 0; i < rpm; i++) {
      const r = await h.call("GET", list, { key });
      if (r.status !== 200) expectStatus(r, 200);
      if (i % 100 === 0) clock.t += 7; // a few buckets, all inside one second
    }
    const refused = await h.call("GET", list, { key });
    expectError(refused, 429, "rate_limit_exceeded");
    // The bucket starting at NOON counts until NOON + 60.999 s.
    expect(Number(refused.headers.get("retry-after"))).toBe(61);
    clock.t = NOON + 60_998;
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
    clock.t = NOON + 60_999;
    expectStatus(await h.call("GET", list, { key }), 200);
    // A request every 0.5 s for 90 s: the row keeps at most 61 one-second buckets.
    for (let i = 0; i < 1_800; i += 10) {
      clock.t += 500;
      expectStatus(await h.call("GET", list, { key }), 200);
    }
    const [row] = await h.store.db.select().from(rateLimits).where(eq(rateLimits.keyId, keyId));
    expect(row!.hits.length).toBeLessThanOrEqual(61);
    expect(row!.hits.length).toBe(row!.counts.length);
  }, 120_000); // over a thousand requests in sequence: a volume test, not a timing one

  test("200 parallel requests on a key with limit 1,010 after 1,000 → exactly 10 more admitted", async () => {
    const { h } = await clocked();
    const key = await h.key("enterprise", { rpm: 1_010, rpd: 1_000_000 });
    for (let i = 0; i < 1_000; i++) {
      const r = await h.call("GET", list, { key });
      if (r.status !== 200) expectStatus(r, 200);
    }
    const replies = await Promise.all(Array.from({ length: 200 }, () => h.call("GET", list, { key })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
  });
});

describe("volume edges", () => {
  test("free plan: 1000 per day", async () => {
    const { h, clock } = await clocked();
    const key = await h.key("free");
    for (let i = 0; i < 1000; i++) {
      clock.t += 3_001; // 20 per minute never bind
      const r = await h.call("GET", list, { key });
      if (r.status !== 200) expectStatus(r, 200);
    }
    clock.t += 3_001;
    expectError(await h.call("GET", list, { key }), 429, "daily_quota_exceeded");
  });
  test("lowering a limit across the 1 s bucket boundary does not shorten the buckets already written", async () => {
    const { h, clock } = await clocked(NOON);
    const key = await h.key("enterprise", { rpm: EXACT_LOG_MAX + 1, rpd: 1_000_000 });
    const keyId = await keyIdOf(h.store, key);
    clock.t = NOON + 900;
    for (let i = 0; i < EXACT_LOG_MAX; i++) {
      const r = await h.call("GET", list, { key });
      if (r.status !== 200) expectStatus(r, 200);
    }
    expect(await updateKey(h.store.db, keyId, { rpm: EXACT_LOG_MAX })).toBe(true);
    // The 1,000 requests sat in the bucket [NOON, NOON + 999]: they count until NOON + 60.999 s.
    clock.t = NOON + 60_000;
    expectError(await h.call("GET", list, { key }), 429, "rate_limit_exceeded");
    clock.t = NOON + 60_999;
    expectStatus(await h.call("GET", list, { key }), 200);
  });
});

/** Usage by UTC day (GET /v1/usage), counted by the database, and the daily token budget. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { llmAgent } from "../src/agent/llm/index.ts";
import type { Agent, AgentChunk } from "../src/agent/types.ts";
import { createKey, updateKey } from "../src/auth/keys-admin.ts";
import { duration } from "../src/ratelimit/token-budget.ts";
import { usageOf } from "../src/usage/service.ts";
import { expectError, expectStatus, harness, keyIdOf } from "./helpers/app.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);
// The shared store (migrated, corpus loaded) once, before the first timed test.
beforeAll(() => testStore().then(() => {}), 120_000);

// Real time: every harness's sweeper ends replies whose lease has passed by ITS clock, so a clock
// far from the others' would have theirs swept (or ours). A test that moves it puts it back.
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Answers "ok" and reports 10 input and 5 output tokens, as a model provider would. */
const metered: Agent = {
  async *respond(): AsyncIterable<AgentChunk> {
    yield { type: "token", content: "ok" };
    yield { type: "usage", usage: { input_tokens: 10, output_tokens: 5 } };
    yield { type: "sources", sources: [] };
  },
};

async function clocked() {
  const clock = { t: Date.now() };
  const h = await harness({ now: () => clock.t, agent: metered });
  return { h, clock };
}

const chat = { message: "hello", stream: false };

describe("GET /v1/usage", () => {
  test("counts requests, turns, tokens and refusals by UTC day, zero days included", async () => {
    const { h, clock } = await clocked();
    const start = clock.t;
    const key = await h.key("free", { rpm: 3 });
    for (let i = 0; i < 2; i++) expectStatus(await h.call("POST", "/v1/chat", { key, json: chat }), 200);
    expectStatus(await h.call("GET", "/v1/usage", { key }), 200); // the 3rd of the minute
    expectError(await h.call("GET", "/v1/usage", { key }), 429, "rate_limit_exceeded");
    expectStatus(await h.call("GET", "/v1/conversations", { key }), 429);
    clock.t += DAY_MS; // the next day
    const [d0, d1, d2] = [day(start - DAY_MS), day(start), day(start + DAY_MS)];
    const res = await h.call("GET", `/v1/usage?from=${d0}&to=${d2}`, { key });
    clock.t = start;
    expectStatus(res, 200);
    expect(res.json.object).toBe("usage");
    expect(res.json.data).toHaveLength(1);
    const [mine] = res.json.data;
    expect(mine?.key_id).toBe(await keyIdOf(h.store, key));
    expect(mine?.days).toEqual([
      { date: d0, requests: 0, chat_turns: 0, input_tokens: 0, output_tokens: 0, refusals: 0 },
      { date: d1, requests: 3, chat_turns: 2, input_tokens: 20, output_tokens: 10, refusals: 2 },
      // This very request, admitted before the report was read.
      { date: d2, requests: 1, chat_turns: 0, input_tokens: 0, output_tokens: 0, refusals: 0 },
    ]);
    expect(mine?.totals).toEqual({ requests: 4, chat_turns: 2, input_tokens: 20, output_tokens: 10, refusals: 2 });
  });

  test("defaults to the 30 days ending today; bad dates and ranges are 400 with param", async () => {
    const { h, clock } = await clocked();
    const key = await h.key();
    const res = await h.call("GET", "/v1/usage", { key });
    expectStatus(res, 200);
    expect(res.json.from).toBe(day(clock.t - 29 * DAY_MS));
    expect(res.json.to).toBe(day(clock.t));
    expect(res.json.data[0]?.days).toHaveLength(30);
    for (const q of ["from=2026-02-30", "to=yesterday", "from=2026-06-02&to=2026-06-01", "from=2024-01-01"]) {
      const bad = await h.call("GET", `/v1/usage?${q}`, { key });
      expectError(bad, 400, "invalid_request");
      expect(bad.json.error.param).toBeOneOf(["from", "to"]);
    }
  });

  test("another key's usage, or all keys, is for admins only: 403 permission_denied", async () => {
    const { h } = await clocked();
    const a = await h.key();
    const b = await h.key();
    const bId = await keyIdOf(h.store, b);
    expectError(await h.call("GET", `/v1/usage?key_id=${bId}`, { key: a }), 403, "permission_denied");
    expectError(await h.call("GET", "/v1/usage?key_id=all", { key: a }), 403, "permission_denied");
    // One's own id is always allowed.
    expectStatus(await h.call("GET", `/v1/usage?key_id=${bId}`, { key: b }), 200);
    // An admin key (role admin) reads another key's usage, or every key's.
    const admin = await h.admin();
    const other = await h.call("GET", `/v1/usage?key_id=${bId}`, { key: admin });
    expectStatus(other, 200);
    expect(other.json.data.map((d) => d.key_id)).toEqual([bId]);
    const all = await h.call("GET", "/v1/usage?key_id=all", { key: admin });
    expectStatus(all, 200);
    expect(all.json.data.map((d) => d.key_id)).toContain(bId);
  });

  test("counts are exact under concurrency (one row per key and day, added to atomically)", async () => {
    const { h } = await clocked();
    const key = await h.key();
    await Promise.all(Array.from({ length: 20 }, () => h.call("POST", "/v1/chat", { key, json: chat })));
    const res = await h.call("GET", `/v1/usage?from=${day(Date.now())}`, { key });
    expect(res.json.data[0]?.totals).toMatchObject({
      requests: 21,
      chat_turns: 20,
      input_tokens: 200,
      output_tokens: 100,
    });
  });
});

describe("daily token budget (tpd)", () => {
  test("headers on every answer; at the budget, 429 token_quota_exceeded until midnight UTC", async () => {
    const { h, clock } = await clocked();
    const { secret: key, id } = await createKey(h.store.db, { name: "t", plan: "pro", tpd: 30 });
    const first = await h.call("POST", "/v1/chat", { key, json: chat });
    expectStatus(first, 200);
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("30");
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("30"); // read at admission
    const toMidnight = DAY_MS - (clock.t % DAY_MS);
    expect(first.headers.get("x-ratelimit-reset-tokens")).toBe(duration(toMidnight));
    const second = await h.call("POST", "/v1/chat", { key, json: chat });
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe("15");
    // 30 of 30 used: refused, whatever the route, until midnight UTC.
    const refused = await h.call("GET", "/v1/conversations", { key });
    expectError(refused, 429, "token_quota_exceeded");
    expect(refused.headers.get("retry-after")).toBe(String(Math.ceil(toMidnight / 1000)));
    expect(refused.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
    // The refusal spent no request of the key's limits, and is counted as a refusal.
    // Read from the service: a request to /v1/usage would itself be refused now.
    const [usage] = await usageOf(h.store.db, [id], day(clock.t), day(clock.t));
    expect(usage!.days[0]).toMatchObject({ requests: 2, refusals: 1 });
    const start = clock.t;
    clock.t = start + toMidnight + 1; // just after midnight UTC
    expectStatus(await h.call("GET", "/v1/conversations", { key }), 200);
    // Raising the budget lets the key in again the same day.
    clock.t = start;
    await updateKey(h.store.db, id, { tpd: 1000 });
    expectStatus(await h.call("GET", "/v1/conversations", { key }), 200);
  });

  test("a key without a budget carries no token headers", async () => {
    const { h } = await clocked();
    const key = await h.key();
    const res = await h.call("GET", "/v1/conversations", { key });
    expect(res.headers.get("x-ratelimit-limit-tokens")).toBeNull();
  });
});

describe("replies cut by the local output cap", () => {
  // A provider that ignores max_tokens: it would stream 3,000 tokens, then report them.
  const tokens = Array.from({ length: 3_000 }, (_, i) => ` w${i}`);
  const fake = startFakeOpenAI({ tokens, usage: { input: 40, output: 3_000 } });
  afterAll(() => fake.stop());

  test("count what Parley streamed (the provider's counts never come: the request was aborted)", async () => {
    const store = await testStore();
    const agent = llmAgent(store.db, {
      provider: "openai-compatible",
      model: "test-model-7b",
      baseUrl: `${fake.url}/v1`,
      apiKey: "sk-test",
      maxOutputTokens: 50,
    });
    const h = await harness({ store, agent });
    const { secret: key, id } = await createKey(h.store.db, { name: "cut", plan: "pro", tpd: 40 });
    const r = await h.call("POST", "/v1/chat", { key, json: chat });
    expectStatus(r, 200);
    expect(r.json.status).toBe("length");
    // 50 text pieces streamed, each counted as one token (the cap's own unit); no input count was reported.
    expect(r.json.usage).toEqual({ input_tokens: null, output_tokens: 50 });
    const [usage] = await usageOf(h.store.db, [id], day(Date.now()), day(Date.now()));
    expect(usage!.days[0]).toMatchObject({ chat_turns: 1, input_tokens: 0, output_tokens: 50 });
    // Those tokens count against the budget: the key is over it now.
    expectError(await h.call("POST", "/v1/chat", { key, json: chat }), 429, "token_quota_exceeded");
  });
});

/** GET /metrics (Prometheus text, token-gated, bounded labels) and the access log's fields and stream line. */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Agent, AgentChunk } from "../src/agent/types.ts";
import { createKey } from "../src/auth/keys-admin.ts";
import { expectStatus, listen, read, send, testApp } from "./helpers/app.ts";
import { captureLog } from "./helpers/log.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);
// The shared store (migrated, corpus loaded) once, before the first timed test.
beforeAll(() => testStore().then(() => {}), 120_000);

const TOKEN = "metrics-token-0123456789";
const metered: Agent = {
  async *respond(): AsyncIterable<AgentChunk> {
    for (const t of ["Hello", " there", " friend"]) yield { type: "token", content: t };
    yield { type: "usage", usage: { input_tokens: 12, output_tokens: 3 } };
    yield { type: "sources", sources: [] };
  },
};

async function app(opts: { metricsToken?: string; trustProxy?: number } = {}) {
  const store = await testStore();
  const log = captureLog();
  const a = testApp({
    store,
    agent: metered,
    logger: log.logger,
    metricsToken: opts.metricsToken,
    options: { trustProxy: opts.trustProxy ?? 0 },
  });
  const { secret, id } = await createKey(store.db, { name: "m", plan: "free", rpm: 4 });
  return { a, log, key: secret, keyId: id };
}

/** Elysia's after-response hook runs after the answer is handed over: wait for what it records. */
async function eventually<T>(get: () => T | undefined, ms = 2_000): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 5))) {
    const v = get();
    if (v !== undefined || Date.now() > end) return v as T;
  }
}

/** The value of one series in a Prometheus text exposition (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("GET /metrics", () => {
  test("without METRICS_TOKEN there is no /metrics (404); with it, a wrong or missing token is 401", async () => {
    const off = await app();
    expect((await send(off.a, "GET", "/metrics")).status).toBe(404);
    const on = await app({ metricsToken: TOKEN });
    const none = await send(on.a, "GET", "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await send(on.a, "GET", "/metrics", { key: "metrics-token-0123456780" })).status).toBe(401);
    expect((await send(on.a, "GET", "/metrics", { key: TOKEN.slice(0, -1) })).status).toBe(401);
  });

  test("real counts after chats: requests by route template, replies, TTFT, tokens, refusals, streams", async () => {
    const { a, key, keyId, log } = await app({ metricsToken: TOKEN });
    expectStatus(await send(a, "POST", "/v1/chat", { key, json: { message: "hi" } }), 200);
    const streamed = await send(a, "POST", "/v1/chat", { key, json: { message: "hi", stream: true } });
    expect(streamed.text).toContain('"type":"end"');
    const conv = (await send(a, "GET", "/v1/conversations", { key })).json.data[0]!.id;
    expectStatus(await send(a, "GET", `/v1/conversations/${conv}`, { key }), 200);
    expect((await send(a, "GET", "/v1/conversations", { key })).status).toBe(429); // rpm 4
    await eventually(() => (log.entries().filter((e) => e.msg === "request").length === 5 ? true : undefined));
    const res = await send(a, "GET", "/metrics", { key: TOKEN });
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const m = res.text;
    expect(sample(m, 'parley_http_requests_total{route="/v1/chat",method="POST",status="200"}')).toBe(2);
    expect(sample(m, 'parley_http_requests_total{route="/v1/conversations/:id",method="GET",status="200"}')).toBe(1);
    expect(sample(m, 'parley_http_requests_total{route="/v1/conversations",method="GET",status="429"}')).toBe(1);
    expect(sample(m, 'parley_http_request_duration_seconds_count{route="/v1/chat",method="POST",status="200"}')).toBe(
      2,
    );
    expect(sample(m, 'parley_replies_total{status="completed"}')).toBe(2);
    expect(sample(m, "parley_time_to_first_token_seconds_count")).toBe(2);
    expect(sample(m, 'parley_model_tokens_total{direction="input"}')).toBe(24);
    expect(sample(m, 'parley_model_tokens_total{direction="output"}')).toBe(6);
    expect(sample(m, 'parley_ratelimit_refusals_total{window="minute"}')).toBe(1);
    expect(sample(m, "parley_open_streams")).toBe(0);
    expect(sample(m, "parley_stream_duration_seconds_count")).toBe(1);
    expect(sample(m, 'parley_process_memory_bytes{kind="rss"}')).toBeGreaterThan(1_000_000);
    expect(m).toContain("parley_event_loop_lag_seconds ");
    // Bounded: templates only — no ids, keys or message text in any series.
    for (const secret of [key, keyId, conv, "hi"]) expect(m).not.toContain(`"${secret}"`);
    expect(m).not.toMatch(/(conv|msg|key|req)_[0-9a-z]{26}/);
  });

  test("unknown paths are one series, whatever the path", async () => {
    const { a } = await app({ metricsToken: TOKEN });
    for (const p of ["/nope/1", "/nope/2", "/v1/x/3"]) await send(a, "GET", p);
    const m = (await send(a, "GET", "/metrics", { key: TOKEN })).text;
    expect(m).not.toContain("/nope/");
    expect(m).not.toContain("/v1/x/3");
  });
});

describe("GET /metrics: ingest", () => {
  test("documents and passages stored over HTTP are counted, one by one and in bulk", async () => {
    const { a } = await app({ metricsToken: TOKEN });
    const { secret: admin } = await createKey((await testStore()).db, {
      name: "ops admin",
      plan: "enterprise",
      rpm: 1_000,
      rpd: 10_000,
      role: "admin",
    });
    const kb = await send(a, "POST", "/v1/knowledge_bases", {
      key: admin,
      json: { name: `ops-${crypto.randomUUID()}` },
    });
    expectStatus(kb, 201);
    const docs = `/v1/knowledge_bases/${kb.json.id}/documents` as const;
    const one = await send(a, "POST", docs, {
      key: admin,
      json: { url: "https://ops.example/one", title: "One", content: "# One\n\nA first page about gauges." },
    });
    expectStatus(one, 201);
    const lines = ["two", "three"].map((n) =>
      JSON.stringify({ url: `https://ops.example/${n}`, title: n, content: `# ${n}\n\nA page called ${n}.` }),
    );
    const bulk = await send(a, "POST", docs, {
      key: admin,
      body: `${lines.join("\n")}\n`,
      headers: { "content-type": "application/x-ndjson" },
    });
    expectStatus(bulk, 200);
    expect(bulk.json.created, bulk.text).toBe(2);
    const m = (await send(a, "GET", "/metrics", { key: TOKEN })).text;
    expect(sample(m, "parley_ingest_documents_total"), m).toBe(3);
    expect(sample(m, "parley_ingest_passages_total"), m).toBe(one.json.passage_count + 2 * 1);
  });
});

describe("access log", () => {
  test("client IP (socket), user agent and bytes; X-Forwarded-For ignored unless TRUST_PROXY", async () => {
    const { a, log, key } = await app();
    const { url, stop } = listen(a);
    const res = await fetch(`${url}/v1/conversations`, {
      headers: { authorization: `Bearer ${key}`, "user-agent": "probe/1.0", "x-forwarded-for": "203.0.113.9" },
    });
    const body = await res.text();
    stop();
    const line = await eventually(() =>
      log.entries().find((e) => e.msg === "request" && e.route === "/v1/conversations"),
    );
    expect(line).toMatchObject({ client_ip: "127.0.0.1", user_agent: "probe/1.0", bytes: Buffer.byteLength(body) });
    expect(JSON.stringify(log.entries())).not.toContain(key);
  });

  test("TRUST_PROXY=1 takes the address the proxy appended, not one the client sent", async () => {
    const { a, log, key } = await app({ trustProxy: 1 });
    await send(a, "GET", "/v1/conversations", { key, headers: { "x-forwarded-for": "10.9.9.9, 198.51.100.7" } });
    expect((await eventually(() => log.entries().find((e) => e.msg === "request"))).client_ip).toBe("198.51.100.7");
  });

  test("an error's bytes are counted too", async () => {
    const { a, log } = await app();
    const res = await send(a, "GET", "/v1/conversations");
    expect((await eventually(() => log.entries().find((e) => e.msg === "request"))).bytes).toBe(
      Buffer.byteLength(res.text),
    );
  });

  test("a stream logs a second line at its end: full duration, events sent, reply status", async () => {
    const { a, log, key } = await app();
    const res = await a.handle(
      new Request("http://localhost/v1/chat", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ message: "hi", stream: true }),
      }),
    );
    const text = (await read(res)).text;
    const first = await eventually(() => log.entries().find((e) => e.msg === "request" && e.route === "/v1/chat"));
    const end = await eventually(() => log.entries().find((e) => e.msg === "stream end"));
    expect(end).toMatchObject({
      request_id: first.request_id,
      route: "/v1/chat",
      events: 6, // start, 3 tokens, sources, end
      reply_status: "completed",
      bytes: Buffer.byteLength(text),
    });
    expect(end.duration_ms).toBeGreaterThanOrEqual(first.duration_ms);
  });

  test("a replay of an ended reply and a stream the client left log their end too, counted as written", async () => {
    const { a, log, key } = await app();
    const call = (path: string, init: RequestInit = {}) =>
      a.handle(
        new Request(`http://localhost${path}`, {
          ...init,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        }),
      );
    const reply = (await (
      await call("/v1/chat", { method: "POST", body: JSON.stringify({ message: "hi" }) })
    ).json()) as {
      id: string;
      conversation_id: string;
    };
    const replay = await call(`/v1/conversations/${reply.conversation_id}/messages/${reply.id}/events?after=2`);
    const text = (await read(replay)).text;
    const ends = () => log.entries().filter((e) => e.msg === "stream end");
    const replayed = await eventually(() => ends().find((e) => e.route.endsWith("/events")));
    // start and the first token skipped: 2 tokens, sources, end.
    expect(replayed).toMatchObject({ events: 4, reply_status: "completed", bytes: Buffer.byteLength(text) });

    const left = await call("/v1/chat", { method: "POST", body: JSON.stringify({ message: "hi", stream: true }) });
    const reader = left.body!.getReader();
    const first = await reader.read();
    await reader.cancel();
    const closed = await eventually(() => ends().find((e) => e.reply_status === "client_closed"));
    // Bytes written to the response: at least what this client read before it left.
    expect(closed.bytes).toBeGreaterThanOrEqual(first.value!.byteLength);
    expect(closed.events).toBeGreaterThanOrEqual(1);
  });
});

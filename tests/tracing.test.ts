/**
 * Traces: a chat request against the real app, the model agent over the loopback
 * OpenAI-compatible fake, spans exported over OTLP/HTTP (JSON) to a loopback receiver that
 * decodes them. Asserts the span tree, the incoming traceparent, that no attribute holds the
 * message, the answer or a key, and that without an endpoint nothing of OpenTelemetry loads.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { llmAgent } from "../src/agent/llm/index.ts";
import { createLogger } from "../src/config/logger.ts";
import { createTracing, NOOP_TRACING } from "../src/tracing/index.ts";
import { expectStatus, harness } from "./helpers/app.ts";
import { startFakeOpenAI } from "./helpers/fake-openai.ts";
import { decodeExport, type ReceivedSpan, startOtlpReceiver, treeOf } from "./helpers/otlp.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000);

const PROVIDER_KEY = "sk-test-secret-0123456789abcdef";
const QUESTION = "How do rate limits work in Parley?";
const TOKENS = ["Rate", " limits", " are", " counted", " per", " key", " [1]."];
const REMOTE_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const REMOTE_PARENT = "00f067aa0ba902b7";

const receiver = startOtlpReceiver();
const fake = startFakeOpenAI({ tokens: TOKENS, usage: { input: 321, output: 7 }, tokenDelayMs: 25 });
afterAll(async () => {
  receiver.stop();
  await fake.stop();
});

async function setup() {
  const store = await testStore();
  const agent = llmAgent(store.db, {
    provider: "openai-compatible",
    model: "test-model-7b",
    baseUrl: `${fake.url}/v1`,
    apiKey: PROVIDER_KEY,
  });
  const tracing = await createTracing({ endpoint: receiver.url, scheduledDelayMs: 20 });
  const h = await harness({ store, agent, tracing, options: { replyFlushMs: 10 } });
  return { h, key: await h.key() };
}

const children = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
const descendants = (spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] =>
  children(spans, root).flatMap((c) => [c, ...descendants(spans, c)]);

test("a streamed chat continues the incoming traceparent: request → auth, reply → create, search, model, writes", async () => {
  const { h, key } = await setup();
  const res = await h.app.handle(
    new Request("http://localhost/v1/chat", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        traceparent: `00-${REMOTE_TRACE}-${REMOTE_PARENT}-01`,
      },
      body: JSON.stringify({ message: QUESTION, stream: true }),
    }),
  );
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('"type":"end"');
  // close() flushes: every span is exported once it resolves.
  await h.app.parley.close();
  const spans = receiver.spans.filter((s) => s.traceId === REMOTE_TRACE);
  console.log(treeOf(receiver.spans, REMOTE_TRACE));

  const request = spans.find((s) => s.name === "POST /v1/chat")!;
  expect(request).toBeDefined();
  expect(request.parentSpanId).toBe(REMOTE_PARENT);
  expect(request.kind).toBe(2); // SERVER
  expect(request.attributes["http.route"]).toBe("/v1/chat");
  expect(request.attributes["http.response.status_code"]).toBe(200);
  expect(request.attributes["parley.reply_status"]).toBe("completed");

  const names = (list: ReceivedSpan[]) => list.map((s) => s.name).sort();
  expect(names(children(spans, request))).toEqual(["auth+ratelimit", "reply"]);
  const reply = children(spans, request).find((s) => s.name === "reply")!;
  const under = children(spans, reply);
  expect(under.map((s) => s.name)).toEqual(
    expect.arrayContaining(["reply.create", "knowledge.search", "reply.finish"]),
  );
  expect(under.filter((s) => s.name === "reply.flush").length).toBeGreaterThan(0);
  expect(reply.attributes["parley.reply.status"]).toBe("completed");
  // The stream's request span ends with the stream, after the reply's last write began (end
  // times come from per-span anchored clocks: compared to a start, not to the write's end, ±0.6 ms).
  const finish = under.find((s) => s.name === "reply.finish")!;
  expect(request.endMs).toBeGreaterThanOrEqual(finish.startMs);

  // The AI SDK's spans: a root under the reply, the model call with model and token counts below it.
  const model = descendants(spans, reply).filter((s) => s.attributes["gen_ai.request.model"] === "test-model-7b");
  expect(model.length).toBeGreaterThan(0);
  expect(model.some((s) => s.attributes["gen_ai.usage.input_tokens"] === 321)).toBe(true);
  expect(model.some((s) => s.attributes["gen_ai.usage.output_tokens"] === 7)).toBe(true);
  // Every span of the request is in the remote trace, none left as a root of another.
  const all = descendants(spans, request);
  expect(all.length + 1).toBe(spans.length);
  expect(receiver.spans.filter((s) => s.traceId !== REMOTE_TRACE)).toEqual([]);

  // Nothing secret in any export: not the question, the answer, the API key or the provider key.
  const exported = receiver.bodies.join("\n");
  for (const secret of [QUESTION, "rate limits work", TOKENS.join(""), " counted", key, PROVIDER_KEY])
    expect(exported).not.toContain(secret);
});

test("a JSON chat without traceparent starts its own trace; a bad traceparent is ignored", async () => {
  const { h, key } = await setup();
  const before = receiver.spans.length;
  const r = await h.call("POST", "/v1/chat", {
    key,
    json: { message: QUESTION },
    headers: { traceparent: "00-zzzz-not-a-trace-01" },
  });
  expectStatus(r, 200);
  // The request span ends after the answer is handed over (the after-response hook): wait for it.
  await receiver.until((all) => all.slice(before).some((s) => s.name === "POST /v1/chat"));
  await h.app.parley.close();
  const spans = receiver.spans.slice(before);
  const request = spans.find((s) => s.name === "POST /v1/chat")!;
  expect(request.parentSpanId).toBe("");
  expect(spans.every((s) => s.traceId === request.traceId)).toBe(true);
  expect(
    children(spans, request)
      .map((s) => s.name)
      .sort(),
  ).toEqual(["auth+ratelimit", "reply"]);
  const exported = receiver.bodies.join("\n");
  for (const secret of [QUESTION, key, PROVIDER_KEY]) expect(exported).not.toContain(secret);
});

test("a refused request: the auth span fails with the error's code, never its message", async () => {
  const { h } = await setup();
  const before = receiver.spans.length;
  const r = await h.call("GET", "/v1/conversations", { key: "prl_not_a_real_key_0123456789" });
  expect(r.status).toBe(401);
  await receiver.until((all) => all.slice(before).some((s) => s.name === "GET /v1/conversations"));
  await h.app.parley.close();
  const spans = receiver.spans.slice(before);
  const auth = spans.find((s) => s.name === "auth+ratelimit")!;
  expect(auth.attributes["error.type"]).toBe("unauthorized");
  expect(auth.status.code).toBe(2);
  expect(auth.status.message).toBe("unauthorized");
  expect(spans.find((s) => s.name === "GET /v1/conversations")?.attributes["http.response.status_code"]).toBe(401);
});

test("without an endpoint, tracing is the no-op and nothing of OpenTelemetry is loaded", async () => {
  expect(await createTracing(undefined)).toBe(NOOP_TRACING);
  // A fresh process: import the library and the app (every static import), ask for tracing
  // without an endpoint, list the modules loaded.
  const script = `
    const { createTracing } = await import("./src/mod.ts");
    await import("./src/app/app.ts");
    await import("./src/config/env.ts");
    const tracing = await createTracing(undefined);
    // @opentelemetry/api (the no-op API, no SDK) is prom-client's own dependency: loaded with it, as before tracing.
    const loaded = Object.keys(require.cache).filter((p) => /@opentelemetry[\\/](?!api[\\/])|@ai-sdk[\\/]otel|tracing[\\/]otel/.test(p));
    console.log("LOADED " + JSON.stringify({ enabled: tracing.enabled, loaded, modules: Object.keys(require.cache).length }));
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], {
    cwd: `${import.meta.dir}/..`,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
  const line = out.split("\n").find((l) => l.startsWith("LOADED "))!;
  const seen = JSON.parse(line.slice(7));
  expect(seen.enabled).toBe(false);
  expect(seen.loaded).toEqual([]);
  expect(seen.modules).toBeGreaterThan(100); // the check saw the library's modules at all
});

test("a failed model call: the AI SDK's spans carry the error's class, never its message, a stack or a server path", async () => {
  const failing = startFakeOpenAI({ status: 400, errorMessage: "bad things" });
  const store = await testStore();
  const agent = llmAgent(
    store.db,
    { provider: "openai-compatible", model: "test-model-7b", baseUrl: `${failing.url}/v1`, apiKey: PROVIDER_KEY },
    { logger: createLogger("silent") },
  );
  const tracing = await createTracing({ endpoint: receiver.url, scheduledDelayMs: 20 });
  const h = await harness({ store, agent, tracing, options: { replyFlushMs: 10 } });
  const key = await h.key();
  const before = receiver.bodies.length;
  const r = await h.call("POST", "/v1/chat", { key, json: { message: QUESTION } });
  expect(r.status).toBe(502);
  await h.app.parley.close();
  await failing.stop();
  const bodies = receiver.bodies.slice(before);
  const exported = bodies.join("\n");
  // The AI SDK recorded its failure: an error status and the error's class, nothing more.
  const model = bodies
    .flatMap((b) => decodeExport(JSON.parse(b)))
    .filter((s) => s.attributes["gen_ai.request.model"] === "test-model-7b" && s.status.code === 2);
  expect(model.length).toBeGreaterThan(0);
  for (const span of model) {
    expect(span.attributes["error.type"]).toBe("Error");
    expect(span.status.message).toBe("Error");
  }
  expect(exported).toContain('"key":"exception.type"');
  for (const leak of ["exception.stacktrace", "exception.message", "operation failed", "node_modules", "    at "])
    expect(exported).not.toContain(leak);
  expect(exported).not.toContain(import.meta.dir.replace(/\/tests$/, "")); // the server's own path
});

/**
 * Deno smoke test for traces (run by .ci/run): the standalone app served by Deno.serve on PGlite,
 * with tracing built by `createTracing` and exported over OTLP/HTTP (JSON) to a receiver served
 * by Deno.serve too. One chat, then `close()` flushes: the spans arrive, in one trace, with the
 * request span as the root, and carry neither the message nor the key.
 * Run: deno run -A tests/deno/tracing-smoke.ts
 */

import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/config/logger.ts";
import { createTracing } from "../../src/mod.ts";
import { checker, smokeStore } from "./setup.ts";

const check: (cond: unknown, what: string) => asserts cond = checker("deno tracing smoke");
type Span = { traceId: string; spanId: string; parentSpanId?: string; name: string };

const bodies: string[] = [];
const ac = new AbortController();
const receiver = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, async (req) => {
  if (req.method === "POST" && new URL(req.url).pathname === "/v1/traces") bodies.push(await req.text());
  return new Response("{}", { headers: { "content-type": "application/json" } });
});

const { store, secret } = await smokeStore();
const tracing = await createTracing({ endpoint: `http://127.0.0.1:${receiver.addr.port}`, serviceName: "deno-smoke" });
const app = createApp({ store, tracing, logger: createLogger("silent") });
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, app.fetch);
const question = `Does Parley trace on Deno? ${crypto.randomUUID()}`;
try {
  const res = await fetch(`http://127.0.0.1:${server.addr.port}/v1/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ message: question }),
  });
  check(res.status === 200, `chat answered 200 (${res.status})`);
  await res.text();
  await app.parley.close(); // flushes the tracing
  const spans: Span[] = bodies.flatMap((b) =>
    JSON.parse(b).resourceSpans.flatMap((r: { scopeSpans: { spans: Span[] }[] }) =>
      r.scopeSpans.flatMap((s) => s.spans),
    ),
  );
  const names = new Set(spans.map((s) => s.name));
  check(
    names.has("POST /v1/chat") && names.has("auth+ratelimit") && names.has("reply"),
    `spans: ${[...names].join(", ")}`,
  );
  check(new Set(spans.map((s) => s.traceId)).size === 1, "one trace");
  const root = spans.find((s) => s.name === "POST /v1/chat")!;
  check(
    spans.filter((s) => s !== root).every((s) => s.parentSpanId),
    "every other span has a parent",
  );
  const all = bodies.join("\n");
  check(!all.includes(question) && !all.includes(secret), "neither the message nor the key in the export");
} finally {
  ac.abort();
  await store.close();
}

/**
 * `bun scripts/trace-tree.ts [port]`: a local OTLP/HTTP (JSON) receiver that prints each trace
 * as an indented tree once its root span arrives. Point a server at it:
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 bun src/main.ts serve
 * A development aid only (the receiver is tests/helpers/otlp.ts); use a real collector in production.
 */
import { type ReceivedSpan, startOtlpReceiver, treeOf } from "../tests/helpers/otlp.ts";

const port = Number(process.argv[2] ?? 4318);
const printed = new Set<string>();
const all: ReceivedSpan[] = [];
const receiver = startOtlpReceiver((spans) => {
  all.push(...spans);
  // A trace is printed once its root (the request span, which ends last) has arrived.
  const ids = new Set(all.map((s) => s.spanId));
  for (const root of all.filter((s) => !ids.has(s.parentSpanId))) {
    if (printed.has(root.traceId) || !spans.includes(root)) continue;
    printed.add(root.traceId);
    console.log(`${treeOf(all, root.traceId)}\n`);
  }
}, port);
console.error(`OTLP/HTTP receiver on ${receiver.url} (spans at /v1/traces); Ctrl-C to stop`);

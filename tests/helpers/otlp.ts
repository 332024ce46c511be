/**
 * A loopback OTLP/HTTP receiver (Bun.serve, port 0) for the JSON encoding Parley's exporter
 * sends (src/tracing/exporter.ts): it decodes every export into flat spans, and `treeOf` prints
 * a trace as an indented tree (scripts/trace-tree.ts serves the same receiver to a real server).
 */

/** One received span, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  status: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  service: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

const plain = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? "";
const attrs = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));
const ms = (nanos: string | number) => Number(BigInt(nanos) / 1000n) / 1000;

/** The spans of one OTLP JSON ExportTraceServiceRequest. */
export function decodeExport(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(attrs(rs.resource?.attributes)["service.name"] ?? "");
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind,
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          status: s.status ?? {},
          attributes: attrs(s.attributes),
          service,
        });
  }
  return out;
}

export interface OtlpReceiver {
  /** The base URL: OTEL_EXPORTER_OTLP_ENDPOINT (spans arrive at /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** The raw request bodies, to search for text that must never be exported. */
  bodies: string[];
  /** Resolves once `done(spans)` holds (checked on every export). */
  until(done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
  stop(): void;
}

export function startOtlpReceiver(onExport?: (spans: ReceivedSpan[]) => void, port = 0): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const waiters: { done: (s: ReceivedSpan[]) => boolean; resolve: (s: ReceivedSpan[]) => void }[] = [];
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/traces")
        return new Response("not found", { status: 404 });
      const text = await request.text();
      bodies.push(text);
      const got = decodeExport(JSON.parse(text));
      spans.push(...got);
      onExport?.(got);
      for (const w of waiters.splice(0)) (w.done(spans) ? w.resolve : () => waiters.push(w))(spans);
      return Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans,
    bodies,
    until: (done) => (done(spans) ? Promise.resolve(spans) : new Promise((resolve) => waiters.push({ done, resolve }))),
    stop: () => void server.stop(true),
  };
}

/** Attributes worth a glance in a printed tree. */
const SHOWN = [
  "http.route",
  "http.response.status_code",
  "parley.ratelimit.allowed",
  "parley.search.hits",
  "parley.events",
  "parley.flush.result",
  "parley.reply.status",
  "gen_ai.request.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "error.type",
];

/** The trace `traceId` as an indented tree: name, duration, a few attributes. */
export function treeOf(spans: ReceivedSpan[], traceId: string): string {
  const mine = spans.filter((s) => s.traceId === traceId).sort((a, b) => a.startMs - b.startMs);
  const ids = new Set(mine.map((s) => s.spanId));
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const s of mine.filter((x) => (ids.has(x.parentSpanId) ? x.parentSpanId : "") === parent)) {
      const shown = SHOWN.filter((k) => k in s.attributes).map((k) => `${k}=${s.attributes[k]}`);
      const remote = depth === 0 && s.parentSpanId ? ` (parent ${s.parentSpanId}, remote)` : "";
      lines.push(
        `${"  ".repeat(depth)}${s.name}  ${(s.endMs - s.startMs).toFixed(1)} ms${remote}  ${shown.join(" ")}`.trimEnd(),
      );
      walk(s.spanId, depth + 1);
    }
  };
  walk("", 0);
  return `trace ${traceId}\n${lines.join("\n")}`;
}

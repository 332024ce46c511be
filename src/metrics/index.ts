/**
 * Prometheus metrics: one prom-client Registry per createParley (no global registry, nothing
 * on import), exposed by GET /metrics (app/metrics-route.ts). Labels are bounded: route
 * templates, methods, statuses and small closed sets — never ids, keys or text.
 * prom-client runs on Bun, in the compiled binary and on Deno (checked); its default metrics are
 * not used because they install a GC observer nobody can remove; memory and event-loop lag are
 * read at scrape time instead, so a Metrics object holds no timer or listener.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What the pool gauge reads (postgres.js; PGlite has one connection and reports none). */
export interface PoolStats {
  max: number;
  inFlight: number;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(pool?: () => PoolStats) {
  const registry = new Registry();
  const registers = [registry];
  const m = {
    registry,
    requests: new Counter({
      name: "parley_http_requests_total",
      help: "HTTP requests by route template, method and status.",
      labelNames: ["route", "method", "status"] as const,
      registers,
    }),
    duration: new Histogram({
      name: "parley_http_request_duration_seconds",
      help: "Time to the response's headers (a stream's full life is parley_stream_duration_seconds).",
      labelNames: ["route", "method", "status"] as const,
      buckets: SECONDS,
      registers,
    }),
    openStreams: new Gauge({ name: "parley_open_streams", help: "SSE responses open now.", registers }),
    streamDuration: new Histogram({
      name: "parley_stream_duration_seconds",
      help: "Full life of SSE responses, from request to last byte or client gone.",
      buckets: [...SECONDS, 120, 300],
      registers,
    }),
    replies: new Counter({
      name: "parley_replies_total",
      help: "Replies that ended, by terminal status.",
      labelNames: ["status"] as const,
      registers,
    }),
    certainty: new Counter({
      name: "parley_replies_certainty_total",
      help: "Replies answered (completed, stopped or cut at a limit), by how sure their answer was: answered, uncertain, no_sources.",
      labelNames: ["certainty"] as const,
      registers,
    }),
    ttft: new Histogram({
      name: "parley_time_to_first_token_seconds",
      help: "From a reply's start to its first token.",
      buckets: SECONDS,
      registers,
    }),
    tokens: new Counter({
      name: "parley_model_tokens_total",
      help: "Model tokens the provider reported, by direction (input, output).",
      labelNames: ["direction"] as const,
      registers,
    }),
    modelErrors: new Counter({
      name: "parley_model_errors_total",
      help: "Failed model calls, by kind (unreachable, http, stream_error, incomplete, timeout_first, timeout_idle, other).",
      labelNames: ["kind"] as const,
      registers,
    }),
    refusals: new Counter({
      name: "parley_ratelimit_refusals_total",
      help: "Requests refused with 429, by window (minute, day, tokens).",
      labelNames: ["window"] as const,
      registers,
    }),
    ingestDocuments: new Counter({
      name: "parley_ingest_documents_total",
      help: "Documents stored by ingest.",
      registers,
    }),
    ingestPassages: new Counter({
      name: "parley_ingest_passages_total",
      help: "Passages stored by ingest.",
      registers,
    }),
    sourcePages: new Counter({
      name: "parley_source_pages_total",
      help: "URLs web-source syncs asked for, by outcome (fetched, not_modified, skipped, failed).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    sourceSyncs: new Histogram({
      name: "parley_source_sync_duration_seconds",
      help: "Web-source syncs, by how they ended (completed, failed, cancelled): count and duration.",
      labelNames: ["status"] as const,
      buckets: [1, 5, 15, 60, 300, 900, 3600],
      registers,
    }),
  };
  new Gauge({
    name: "parley_db_pool_connections",
    help: "PostgreSQL pool: connections in use, and queries waiting for one (absent on PGlite).",
    labelNames: ["state"] as const,
    registers,
    collect() {
      const s = pool?.();
      if (!s) return;
      this.set({ state: "in_use" }, Math.min(s.inFlight, s.max));
      this.set({ state: "waiting" }, Math.max(0, s.inFlight - s.max));
      this.set({ state: "max" }, s.max);
    },
  });
  new Gauge({
    name: "parley_process_memory_bytes",
    help: "The process's memory by kind (rss, heap_used, heap_total, external).",
    labelNames: ["kind"] as const,
    registers,
    collect() {
      const mem = (
        globalThis as unknown as { process?: { memoryUsage?: () => Record<string, number> } }
      ).process?.memoryUsage?.();
      if (!mem) return;
      this.set({ kind: "rss" }, mem.rss ?? 0);
      this.set({ kind: "heap_used" }, mem.heapUsed ?? 0);
      this.set({ kind: "heap_total" }, mem.heapTotal ?? 0);
      this.set({ kind: "external" }, mem.external ?? 0);
    },
  });
  new Gauge({
    name: "parley_event_loop_lag_seconds",
    help: "How late a zero-delay timer fired at scrape time.",
    registers,
    async collect() {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, 0));
      this.set((performance.now() - start) / 1000);
    },
  });
  return m;
}

export type Metrics = ReturnType<typeof createMetrics>;

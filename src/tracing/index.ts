/**
 * Traces: the one front door. `createTracing(config)` returns a `Tracing`: with an OTLP endpoint
 * it loads the OpenTelemetry SDK (a dynamic import of ./otel.ts, so without one no
 * `@opentelemetry/*` module is ever loaded) and exports spans over OTLP/HTTP; without one it is
 * NOOP_TRACING, whose spans cost a function call. Code that records spans sees only the types
 * below: a `Trace` is a position in a trace (children start under its span), passed explicitly —
 * there is no context manager, so no AsyncLocalStorage and no global state.
 *
 * Span attributes are ids, names, counts and statuses: never message text, keys, headers or SQL
 * parameters (docs/operations.md#traces-opentelemetry lists them all).
 */
import type { TelemetryOptions } from "ai";

export type Attributes = Record<string, string | number | boolean | undefined>;

/** A span being recorded. `end(error)` marks it failed with the error's code or class, never its message. */
export interface ActiveSpan {
  /** Children of this span start here. */
  readonly trace: Trace;
  set(attributes: Attributes): void;
  rename(name: string): void;
  end(error?: unknown): void;
}

/** A position in a trace: spans started here are children of its span (or roots). */
export interface Trace {
  start(name: string, attributes?: Attributes): ActiveSpan;
  /**
   * The AI SDK's telemetry option for one model call under this span: its OpenTelemetry
   * integration with inputs and outputs never recorded. Undefined when tracing is off.
   */
  modelTelemetry(): TelemetryOptions | undefined;
}

/** Tracing for one createParley: request spans and their traces; `shutdown()` flushes and ends the exporter. */
export interface Tracing {
  readonly enabled: boolean;
  /**
   * Starts the span of an incoming request (named by its method until `rename`), continuing the
   * request's W3C `traceparent` when it carries a valid one. Kept beside the Request for `of`.
   */
  startRequest(request: Request): ActiveSpan;
  /** The request's span, if one was started. */
  requestSpan(request: Request): ActiveSpan | undefined;
  /** Where a request's work goes: under its request span, else under its `traceparent`, else a new trace. */
  of(request: Request): Trace;
  /** Exports what is buffered and stops the exporter (createParley's `close()`). */
  shutdown(): Promise<void>;
}

/** Where to export: the OTLP/HTTP base URL (spans go to `<endpoint>/v1/traces`). */
export interface TracingConfig {
  endpoint: string;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full URL, used as is. */
  tracesEndpoint?: string;
  /** Sent with every export (OTEL_EXPORTER_OTLP_HEADERS), e.g. a collector's token. */
  headers?: Record<string, string>;
  serviceName?: string;
  serviceVersion?: string;
  /** Milliseconds between batch exports (default 5,000; tests use less). */
  scheduledDelayMs?: number;
}

/** The error's code (ApiError), else its class: what a span may say about a failure. */
export function errorType(error: unknown): string {
  if (error && typeof error === "object") {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && /^[a-z0-9_]+$/.test(code)) return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === "string") return name;
  }
  return typeof error;
}

/** Runs `fn` inside a span of `trace`: ended when `fn` settles, failed when it throws. */
export async function inSpan<T>(
  trace: Trace,
  name: string,
  fn: (span: ActiveSpan) => Promise<T>,
  attributes?: Attributes,
): Promise<T> {
  const span = trace.start(name, attributes);
  try {
    const result = await fn(span);
    span.end();
    return result;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

const NOOP_SPAN: ActiveSpan = {
  get trace() {
    return NOOP_TRACE;
  },
  set() {},
  rename() {},
  end() {},
};

/** A trace that records nothing. */
export const NOOP_TRACE: Trace = { start: () => NOOP_SPAN, modelTelemetry: () => undefined };

/** Tracing switched off: nothing is recorded, nothing of OpenTelemetry is loaded. */
export const NOOP_TRACING: Tracing = {
  enabled: false,
  startRequest: () => NOOP_SPAN,
  requestSpan: () => undefined,
  of: () => NOOP_TRACE,
  shutdown: async () => {},
};

/** Tracing for `config`, or NOOP_TRACING without an endpoint. Loads the SDK only when configured. */
export async function createTracing(config?: TracingConfig): Promise<Tracing> {
  if (!config?.endpoint && !config?.tracesEndpoint) return NOOP_TRACING;
  const { otelTracing } = await import("./otel.ts");
  return otelTracing(config);
}

/** OTEL_EXPORTER_OTLP_HEADERS' form: `k=v,k2=v2`, values percent-encoded. */
export function parseOtlpHeaders(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (value ?? "").split(",")) {
    const cut = pair.indexOf("=");
    if (cut <= 0) continue;
    out[decodeURIComponent(pair.slice(0, cut).trim())] = decodeURIComponent(pair.slice(cut + 1).trim());
  }
  return out;
}

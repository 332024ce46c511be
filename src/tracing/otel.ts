/**
 * The OpenTelemetry side of tracing/index.ts, imported only when an OTLP endpoint is configured.
 * One TracerProvider per Tracing (never registered globally: a host app's own provider and
 * context manager are left alone), a batch processor over the fetch exporter, and the W3C
 * trace-context propagator for incoming `traceparent`s. Parents are passed explicitly
 * (`Trace`); the AI SDK's integration gets a tracer whose spans default to the model call's parent.
 */
import { OpenTelemetry } from "@ai-sdk/otel";
import {
  type Context,
  type Exception,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { FetchSpanExporter } from "./exporter.ts";
import { type ActiveSpan, type Attributes, errorType, type Trace, type Tracing, type TracingConfig } from "./index.ts";

/**
 * A span of the AI SDK's integration with a failure kept to its class, as Parley's own spans
 * do: its `recordException` would add an event with the error's message and stack (server
 * paths), and `setStatus` the message. They become `exception.type` and `error.type`, and the
 * class as the status message. Everything else goes to the span as it is.
 */
function classOnly(span: Span): Span {
  let type: string | undefined;
  const wrapped: Span = new Proxy(span, {
    get(target, prop) {
      if (prop === "recordException")
        return (exception: Exception, time?: TimeInput) => {
          type = errorType(exception);
          target.setAttribute("error.type", type);
          target.addEvent("exception", { "exception.type": type }, time);
        };
      if (prop === "setStatus")
        return (status: SpanStatus) => {
          target.setStatus(
            status.code === SpanStatusCode.ERROR ? { code: status.code, ...(type ? { message: type } : {}) } : status,
          );
          return wrapped;
        };
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      // Chained calls (setAttribute(…).setStatus(…)) stay on the wrapper.
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? wrapped : result;
      };
    },
  });
  return wrapped;
}

/**
 * A tracer whose spans, when not given a parent, start under `parent` (there is no active
 * context), and record failures by class only (`classOnly`).
 */
function parentedTracer(tracer: Tracer, parent: Context): Tracer {
  return {
    startSpan: (name: string, options?: SpanOptions, context?: Context) =>
      classOnly(tracer.startSpan(name, options, context ?? parent)),
    startActiveSpan: ((name: string, ...rest: unknown[]) => {
      const fn = rest.pop() as (span: Span) => unknown;
      const [options = {}, context = parent] = rest as [SpanOptions?, Context?];
      return tracer.startActiveSpan(name, options, context, ((span: Span) => fn(classOnly(span))) as typeof fn);
    }) as Tracer["startActiveSpan"],
  };
}

class OtelTrace implements Trace {
  constructor(
    private readonly tracer: Tracer,
    readonly context: Context,
  ) {}

  start(name: string, attributes?: Attributes, kind = SpanKind.INTERNAL): ActiveSpan {
    const span = this.tracer.startSpan(name, { kind, attributes: clean(attributes) }, this.context);
    return new OtelSpan(span, new OtelTrace(this.tracer, trace.setSpan(this.context, span)));
  }

  modelTelemetry() {
    return {
      isEnabled: true,
      recordInputs: false,
      recordOutputs: false,
      integrations: new OpenTelemetry({ tracer: parentedTracer(this.tracer, this.context) }),
    };
  }
}

class OtelSpan implements ActiveSpan {
  private ended = false;
  constructor(
    private readonly span: Span,
    readonly trace: Trace,
  ) {}
  set(attributes: Attributes): void {
    this.span.setAttributes(clean(attributes) ?? {});
  }
  rename(name: string): void {
    this.span.updateName(name);
  }
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (error !== undefined) {
      const type = errorType(error);
      this.span.setAttribute("error.type", type);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    this.span.end();
  }
}

const clean = (attributes: Attributes | undefined) =>
  attributes &&
  (Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined)) as Record<
    string,
    string | number | boolean
  >);

const headerGetter = {
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};

export function otelTracing(config: TracingConfig): Tracing {
  const url = config.tracesEndpoint ?? `${config.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": config.serviceName ?? "parley",
      ...(config.serviceVersion ? { "service.version": config.serviceVersion } : {}),
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new FetchSpanExporter(url, config.headers),
        scheduledDelayMillis: config.scheduledDelayMs ?? 5_000,
      }),
    ],
  });
  const tracer = provider.getTracer("parley");
  const propagator = new W3CTraceContextPropagator();
  const requests = new WeakMap<Request, ActiveSpan>();
  /** The request's remote parent, when its traceparent is valid (else a new trace). */
  const remote = (request: Request) => propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
  return {
    enabled: true,
    startRequest(request) {
      const path = new URL(request.url).pathname;
      const span = new OtelTrace(tracer, remote(request)).start(
        request.method,
        { "http.request.method": request.method, "url.path": path },
        SpanKind.SERVER,
      );
      requests.set(request, span);
      return span;
    },
    requestSpan: (request) => requests.get(request),
    of: (request) => requests.get(request)?.trace ?? new OtelTrace(tracer, remote(request)),
    shutdown: () => provider.shutdown(),
  };
}

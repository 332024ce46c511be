/**
 * The standalone app: /healthz and /readyz, /docs and the OpenAPI document, opt-in CORS, the
 * access log, the Parley plugin, and JSON errors for anything outside it. Used by the server
 * entry and by tests (app.handle), so both exercise the same composition.
 */
import { sql } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { createLogger } from "../config/logger.ts";
import { DEFAULT_OPTIONS } from "../config/options.ts";
import {
  clientIp,
  elapsedMs,
  elapsedSince,
  errorBytes,
  finalStatus,
  markClient,
  markStart,
  markStatus,
  requestIdOf,
  socketIp,
  startOf,
  urlOf,
} from "../http/core.ts";
import { corsAnswerHeaders, isPreflight, preflightResponse } from "../http/cors.ts";
import { errorResponse } from "../http/error-handler.ts";
import { ApiError } from "../http/errors.ts";
import { notAllowed, routePatterns } from "../http/fallback.ts";
import { ErrorBody } from "../http/model.ts";
import { SseResponse, type StreamSummary } from "../http/sse.ts";
import { createParley, type ParleyConfig, type ParleyHandle } from "../mod.ts";
import { utf8Length, withTimeout } from "../primitives.ts";
import type { ActiveSpan, Attributes } from "../tracing/index.ts";
import { type ConsoleAssets, consoleRoutes } from "./console.ts";
import { type DocsScript, docsRoutes } from "./docs.ts";
import { metricsRoute } from "./metrics-route.ts";
import { buildOpenApi } from "./openapi.ts";
import { preflightOriginsOf } from "./preflight.ts";
import { type WidgetScript, widgetRoutes } from "./widget.ts";

/** How long /readyz waits for `select 1` before answering 503. */
export const READY_TIMEOUT_MS = 2_000;

/** Probes: frequent and uninteresting while they pass, so their access lines are at debug. */
const PROBES = new Set(["/healthz", "/readyz"]);
/** Probes and scrapes get no request span. */
const UNTRACED = new Set([...PROBES, "/metrics"]);

/** The runtime's extras: `docsScript`, `consoleAssets` and `widgetScript` serve /docs, /console and /widget.js (the runtime reads the files). */
export interface AppConfig extends ParleyConfig {
  docsScript?: DocsScript;
  consoleAssets?: ConsoleAssets;
  widgetScript?: WidgetScript;
  readyTimeoutMs?: number;
  /** GET /metrics answers only requests bearing this token; unset, /metrics is 404 and no metrics are kept. */
  metricsToken?: string;
}

export function createApp({
  docsScript,
  consoleAssets,
  widgetScript,
  readyTimeoutMs = READY_TIMEOUT_MS,
  metricsToken,
  ...config
}: AppConfig) {
  const logger = config.logger ?? createLogger("info");
  const cors = config.options?.corsOrigins;
  const trustProxy = config.options?.trustProxy ?? DEFAULT_OPTIONS.trustProxy;
  const parley = createParley({ ...config, logger, metrics: config.metrics ?? Boolean(metricsToken) });
  const metrics = parley.metrics;
  const tracing = parley.tracing;
  /** Requests answered with a stream: their span ends with the stream, not with the headers. */
  const streaming = new WeakSet<Request>();
  /** The request span, named by its route template, ends with the status sent (a stream: at its end). */
  const endRequestSpan = (request: Request, route: string, status: number, extra: Attributes = {}) =>
    endSpan(tracing.requestSpan(request), request.method, route, status, extra);
  const endSpan = (span: ActiveSpan | undefined, method: string, route: string, status: number, extra: Attributes) => {
    if (!span) return;
    span.rename(`${method} ${route || "*"}`);
    span.set({ "http.route": route || "*", "http.response.status_code": status, ...extra });
    span.end(status >= 500 ? { code: `http_${status}` } : undefined);
  };
  const preflightOrigins = preflightOriginsOf(cors, config.store.db);
  let spec: unknown;
  let buildSpec = (): unknown => undefined;
  let patterns: ReturnType<typeof routePatterns> | undefined;
  const app = new Elysia()
    // Routes outside the plugin (health, docs) carry a request id too.
    .onRequest(async ({ request, set, server }) => {
      markStart(request);
      markClient(request, server?.requestIP(request)?.address);
      const requestId = requestIdOf(request);
      set.headers["x-request-id"] = requestId;
      if (tracing.enabled && !(cors && isPreflight(request)) && !UNTRACED.has(urlOf(request).pathname))
        tracing.startRequest(request).set({ "parley.request_id": requestId });
      // Before routing, auth and limits: a preflight never carries a key and never counts. A
      // page of a public key's allowed origin is answered for that origin (its widget's calls).
      const origins = isPreflight(request) ? await preflightOrigins(request) : cors;
      if (!origins) return;
      if (isPreflight(request)) {
        // The after-response hook does not run for an answer from onRequest: log it here.
        logger.info(
          {
            request_id: requestId,
            method: "OPTIONS",
            route: "preflight",
            status: 204,
            duration_ms: elapsedMs(request),
          },
          "request",
        );
        return preflightResponse(origins, request, requestId);
      }
      Object.assign(set.headers, corsAnswerHeaders(origins, request.headers.get("origin")));
    })
    .onError(({ error, code, request }) => {
      // Methods Elysia's router does not route (PROPFIND, TRACE, QUERY…) never reach the /v1
      // catch-all: a path that exists answers 405 with Allow all the same.
      if (code === "NOT_FOUND") {
        patterns ??= routePatterns(app.routes.filter((r) => r.method !== "ALL" && !r.path.endsWith("*")));
        const refused = notAllowed(patterns, request.method, urlOf(request).pathname.replace(/(.)\/$/, "$1"));
        if (refused) return errorResponse(refused, request, logger);
      }
      return errorResponse(error, request, logger, String(code));
    })
    // A stream's first line is logged when its headers go out; its second when it ends (below).
    .mapResponse(({ request, responseValue, route }) => {
      // Our SSE answers carry their tally (http/sse.ts): it says how the stream ended.
      if (!(responseValue instanceof SseResponse)) return;
      metrics?.openStreams.inc();
      streaming.add(request);
      // What the stream's end needs, read now: holding the Request and the Response (which
      // Elysia copies before sending) until the end kept both, their headers and the request's
      // body stream alive for every open stream.
      const [span, requestId, startedAt] = [tracing.requestSpan(request), requestIdOf(request), startOf(request)];
      const [method, status, tally] = [request.method, responseValue.status, responseValue.tally];
      const ended = (end: StreamSummary) => {
        const ms = elapsedSince(startedAt) ?? 0;
        endSpan(span, method, route, status, { "parley.reply_status": end.reply_status });
        metrics?.openStreams.dec();
        metrics?.streamDuration.observe(ms / 1000);
        logger.info({ request_id: requestId, method, route: route || "*", duration_ms: ms, ...end }, "stream end");
      };
      tally.onEnd(ended);
    })
    .onAfterResponse(({ request, route, set, responseValue, ...ctx }) => {
      const path = urlOf(request).pathname;
      const apiKey = (ctx as { apiKey?: { id: string } }).apiKey;
      const template = route || "*";
      const status = finalStatus(request, responseValue, set.status);
      const duration = elapsedMs(request);
      const fields = {
        request_id: requestIdOf(request),
        method: request.method,
        route: template,
        status,
        duration_ms: duration,
        ...(apiKey ? { key_id: apiKey.id } : {}),
        client_ip: clientIp(request, socketIp(request), trustProxy),
        user_agent: request.headers.get("user-agent") ?? undefined,
        bytes: bytesSent(request, responseValue, set.headers),
      };
      if (metrics && path !== "/metrics") {
        const labels = { route: template, method: request.method, status: String(status) };
        metrics.requests.inc(labels);
        metrics.duration.observe(labels, (duration ?? 0) / 1000);
      }
      if (!streaming.has(request)) endRequestSpan(request, route, status);
      (PROBES.has(path) ? logger.debug : logger.info).call(logger, fields, "request");
    })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Liveness", tags: ["Health"] } })
    .get(
      "/readyz",
      async ({ request }) => {
        const answers = await storeAnswers(config, readyTimeoutMs);
        const writable = answers && (await storeWritable(config, readyTimeoutMs));
        if (answers && writable) return { status: "ready" as const };
        const error = new ApiError(
          "service_unavailable",
          answers
            ? "The store cannot write its data (storage fault, or its disk is nearly full); it recovers by itself once the fault clears."
            : `The database did not answer within ${readyTimeoutMs} ms.`,
        );
        markStatus(request, 503);
        // Answered, not thrown: a probe failing every few seconds while the database is away is not worth a warning each.
        return error.respond(requestIdOf(request)) as never;
      },
      {
        response: { 200: t.Object({ status: t.Literal("ready") }), 503: ErrorBody },
        detail: {
          summary: "Readiness: 503 while the database does not answer or the store cannot write",
          tags: ["Health"],
        },
      },
    )
    // Built on first read, not with the app: most apps (tests, embedded hosts) never serve it.
    .get("/v1/openapi.json", () => (spec ??= buildSpec()), { detail: { hide: true } })
    .use(docsRoutes(docsScript))
    .use(metricsRoute(metrics, metricsToken))
    .use(consoleRoutes(consoleAssets))
    .use(widgetRoutes(widgetScript))
    .use(parley);
  const maxChars = config.options?.maxMessageChars ?? DEFAULT_OPTIONS.maxMessageChars;
  buildSpec = () => buildOpenApi(app, { maxMessageChars: maxChars });
  // The plugin's lifetimes: `app.parley.close()` ends them, `app.parley.replies.drain()` at shutdown.
  const handle: ParleyHandle = parley;
  return Object.assign(app, { parley: handle });
}

/**
 * Bytes of the body sent: an error's (the handler measured it), a Response's Content-Length, else
 * the JSON Elysia serialises an object into. A stream's count is in its second line.
 */
function bytesSent(request: Request, value: unknown, headers: Record<string, unknown>): number | undefined {
  const error = errorBytes(request);
  if (error !== undefined) return error;
  if (value instanceof Response) {
    const length = value.headers.get("content-length") ?? headers["content-length"];
    return length == null ? undefined : Number(length);
  }
  if (value === undefined || value === null) return 0;
  return utf8Length(typeof value === "string" ? value : JSON.stringify(value));
}

/** Whether the store answers a trivial query within `ms`. */
function storeAnswers({ store }: ParleyConfig, ms: number): Promise<boolean> {
  return within(
    store.db.execute(sql`select 1`).then(
      () => true,
      () => false,
    ),
    ms,
  );
}

/** Whether the store can write (its own probe, when it has one) within `ms`. */
function storeWritable({ store }: ParleyConfig, ms: number): Promise<boolean> {
  return store.writable
    ? within(
        store.writable().catch(() => false),
        ms,
      )
    : Promise.resolve(true);
}

/** `query`'s answer, or false after `ms`. */
const within = (query: Promise<boolean>, ms: number): Promise<boolean> => withTimeout(query, ms, false);

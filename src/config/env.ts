/**
 * The server's environment, validated once at start (@t3-oss/env-core + zod). A bad value
 * stops the process with a message naming the variable; nothing here is ever skipped.
 */
import { createEnv } from "@t3-oss/env-core";
import { z } from "zod";
import { parseOtlpHeaders, type TracingConfig } from "../tracing/index.ts";
import { parseCorsOrigins } from "./cors-origins.ts";
import { BOUNDS, DEFAULT_OPTIONS, INT4_MAX, type ParleyOptions } from "./options.ts";

const int = (def: number, min = 1, max = INT4_MAX) => z.coerce.number().int().min(min).max(max).default(def);
/** An option's variable: its default and bounds are the option's (config/options.ts). */
const option = (name: keyof typeof BOUNDS & keyof ParleyOptions) =>
  int(DEFAULT_OPTIONS[name] as number, BOUNDS[name].min, BOUNDS[name].max);
const planLimit = (def: number) => int(def, BOUNDS.planLimit.min, BOUNDS.planLimit.max);

export function loadEnv(source: Record<string, string | undefined>) {
  const env = createEnv({
    runtimeEnv: source,
    emptyStringAsUndefined: true,
    server: {
      PORT: z.coerce.number().int().min(0).max(65535).default(3000),
      HOST: z.string().default("0.0.0.0"),
      DATABASE_URL: z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
        .optional(),
      DATA_DIR: z.string().default("./data"),
      LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
      MAX_MESSAGE_CHARS: option("maxMessageChars"),
      MAX_BODY_BYTES: option("maxBodyBytes"),
      MAX_DOCUMENT_BYTES: option("maxDocumentBytes"),
      MAX_UPLOAD_BYTES: option("maxUploadBytes"),
      UPLOAD_IDLE_TIMEOUT_MS: option("uploadIdleMs"),
      // Well below the server's 30 s idle timeout, so a busy event loop cannot push a ping past it.
      KEEPALIVE_MS: option("keepAliveMs"),
      SHUTDOWN_GRACE_MS: int(10_000, 0),
      // The server kills itself when its event loop stalls this long (runtime/watchdog.ts); 0: never.
      WATCHDOG_MS: int(30_000, 0),
      DB_POOL_MAX: int(10),
      // How long one statement may wait for PostgreSQL (queue, connect, answer) before a 503.
      DB_WAIT_MS: int(5_000, 100, 600_000),
      FREE_RPM: planLimit(DEFAULT_OPTIONS.plans.free.rpm),
      FREE_RPD: planLimit(DEFAULT_OPTIONS.plans.free.rpd),
      PRO_RPM: planLimit(DEFAULT_OPTIONS.plans.pro.rpm),
      PRO_RPD: planLimit(DEFAULT_OPTIONS.plans.pro.rpd),
      REPLY_LEASE_MS: option("replyLeaseMs"),
      REPLY_FLUSH_MS: option("replyFlushMs"),
      REPLY_POLL_MS: option("replyPollMs"),
      REPLY_EVENTS_RETENTION: option("replyEventsRetentionS"),
      VISITOR_TOKEN_TTL_MS: option("visitorTokenTtlMs"),
      // Unset: analytics keep question text.
      ANALYTICS_RETENTION_DAYS: z.coerce
        .number()
        .int()
        .min(BOUNDS.analyticsRetentionDays.min)
        .max(BOUNDS.analyticsRetentionDays.max)
        .optional(),
      RATE_LIMIT: z.enum(["on", "off"]).default("on"),
      LOG_FORMAT: z.enum(["json", "text"]).default("json"),
      CORS_ORIGINS: z
        .string()
        .optional()
        .superRefine((v, ctx) => {
          try {
            parseCorsOrigins(v);
          } catch (e) {
            ctx.addIssue({ code: "custom", message: (e as Error).message });
          }
        }),
      // --- Model backend: unset LLM_PROVIDER keeps the retrieval agent. See src/agent/llm/.
      LLM_PROVIDER: z.enum(["openai-compatible", "anthropic"]).optional(),
      LLM_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
      LLM_API_KEY: z.string().optional(),
      LLM_MODEL: z.string().optional(),
      LLM_SYSTEM_PROMPT: z.string().optional(),
      LLM_MAX_OUTPUT_TOKENS: int(1024, 1, 1_000_000),
      LLM_MAX_REPLY_BYTES: int(262_144, 1_024, 16_777_216),
      LLM_TIMEOUT_MS: int(60_000, 100),
      LLM_IDLE_TIMEOUT_MS: int(30_000, 100),
      LLM_MAX_RETRIES: int(2, 0, 10),
      LLM_HISTORY_BUDGET: int(24_000, 0),
      // A follow-up is condensed by the model into a standalone search query (agent/llm/rewrite.ts).
      LLM_REWRITE: z.enum(["on", "off"]).default("on"),
      LLM_REWRITE_TIMEOUT_MS: int(3_000, 100, 60_000),
      // The model may search the knowledge base itself, up to LLM_TOOL_SEARCH_MAX times a reply.
      LLM_AGENTIC: z.enum(["on", "off"]).default("off"),
      LLM_TOOL_SEARCH_MAX: int(3, 1, 10),
      // --- end of the model backend block
      // --- Operations: GET /metrics needs this Bearer token (unset: /metrics is 404).
      METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
      // Traces: unset OTEL_EXPORTER_OTLP_ENDPOINT loads nothing of OpenTelemetry (src/tracing/).
      OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
        .url({ protocol: /^https?$/, error: "must be an http(s):// URL" })
        .optional(),
      OTEL_EXPORTER_OTLP_HEADERS: z
        .string()
        .optional()
        .superRefine((v, ctx) => {
          try {
            parseOtlpHeaders(v);
          } catch {
            ctx.addIssue({ code: "custom", message: "must be key=value pairs separated by commas (percent-encoded)" });
          }
        }),
      OTEL_SERVICE_NAME: z.string().default("parley"),
      // Proxies in front of Parley whose X-Forwarded-For is trusted for the client IP (0: none).
      TRUST_PROXY: z
        .string()
        .default("0")
        .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v)))
        .pipe(z.number().int().min(0).max(10)),
      // --- Embeddings: unset EMBEDDINGS_PROVIDER keeps BM25F alone. See src/knowledge/embeddings/.
      EMBEDDINGS_PROVIDER: z.enum(["openai-compatible"]).optional(),
      EMBEDDINGS_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
      EMBEDDINGS_MODEL: z.string().optional(),
      EMBEDDINGS_API_KEY: z.string().optional(),
      EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(2000).optional(),
      EMBEDDINGS_SEND_DIMENSIONS: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true"),
      EMBEDDINGS_BATCH_SIZE: int(64, 1, 2048),
      EMBEDDINGS_TIMEOUT_MS: int(5_000, 100),
      EMBEDDINGS_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).optional(),
      EMBEDDINGS_RRF_K: int(60, 1, 10_000),
      // SO_REUSEPORT: several servers on one port (PostgreSQL only; see README). Off: a busy port is an error.
      // Web sources (src/sources/): crawling private addresses is refused unless this says so.
      SOURCES_ALLOW_PRIVATE_NETWORKS: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true"),
      SOURCES_MAX_IN_FLIGHT_PER_HOST: int(2, 1, BOUNDS.maxInFlightPerHost.max),
      SOURCES_POLITENESS: z.enum(["on", "off"]).default("on"),
      SOURCES_CONTACT_URL: z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional(),
      SOURCES_REQUEST_TIMEOUT_MS: int(15_000, BOUNDS.sourceRequestTimeoutMs.min, BOUNDS.sourceRequestTimeoutMs.max),
      SOURCES_LEASE_MS: int(30_000, BOUNDS.sourceLeaseMs.min, BOUNDS.sourceLeaseMs.max),
      SOURCES_SCHEDULE_EVERY_MS: int(60_000, BOUNDS.sourceScheduleEveryMs.min, BOUNDS.sourceScheduleEveryMs.max),
      REUSE_PORT: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true"),
    },
    onValidationError: (issues) => {
      const lines = issues.map((i) => `  ${i.path?.map(String).join(".") ?? "?"}: ${i.message}`);
      throw new Error(`Invalid environment:\n${lines.join("\n")}`);
    },
  });
  // Cross-field: a provider without a model cannot answer anything.
  if (env.LLM_PROVIDER && !env.LLM_MODEL) {
    throw new Error(
      `Invalid environment:\n  LLM_MODEL: required when LLM_PROVIDER is set (LLM_PROVIDER=${env.LLM_PROVIDER})`,
    );
  }
  if (env.EMBEDDINGS_PROVIDER) {
    const missing = (["EMBEDDINGS_BASE_URL", "EMBEDDINGS_MODEL", "EMBEDDINGS_DIMENSIONS"] as const).filter(
      (k) => env[k] === undefined,
    );
    if (missing.length)
      throw new Error(
        `Invalid environment:\n${missing.map((k) => `  ${k}: required when EMBEDDINGS_PROVIDER is set`).join("\n")}`,
      );
  }
  // Two PGlite servers sharing a port would each serve their own store: the kernel would split
  // clients between them (a key created on one is unknown to the other).
  if (env.REUSE_PORT && !env.DATABASE_URL) {
    throw new Error(
      "Invalid environment:\n  REUSE_PORT: true only with DATABASE_URL (instances sharing a port must share one PostgreSQL; PGlite is one process per data folder)",
    );
  }
  return env;
}

/** The validated environment. */
export type Env = ReturnType<typeof loadEnv>;

export function optionsFromEnv(env: Env): ParleyOptions {
  return {
    maxMessageChars: env.MAX_MESSAGE_CHARS,
    maxBodyBytes: env.MAX_BODY_BYTES,
    maxDocumentBytes: env.MAX_DOCUMENT_BYTES,
    maxUploadBytes: env.MAX_UPLOAD_BYTES,
    uploadIdleMs: env.UPLOAD_IDLE_TIMEOUT_MS,
    keepAliveMs: env.KEEPALIVE_MS,
    plans: { free: { rpm: env.FREE_RPM, rpd: env.FREE_RPD }, pro: { rpm: env.PRO_RPM, rpd: env.PRO_RPD } },
    rateLimit: env.RATE_LIMIT === "on",
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    replyLeaseMs: env.REPLY_LEASE_MS,
    replyFlushMs: env.REPLY_FLUSH_MS,
    replyPollMs: env.REPLY_POLL_MS,
    trustProxy: env.TRUST_PROXY,
    replyEventsRetentionS: env.REPLY_EVENTS_RETENTION,
    visitorTokenTtlMs: env.VISITOR_TOKEN_TTL_MS,
    // No variable: the default suits a browser; a host app (or a test) may pass another.
    proofOfWorkMaxNumber: DEFAULT_OPTIONS.proofOfWorkMaxNumber,
    analyticsRetentionDays: env.ANALYTICS_RETENTION_DAYS ?? null,
    sources: {
      allowPrivateNetworks: env.SOURCES_ALLOW_PRIVATE_NETWORKS,
      maxInFlightPerHost: env.SOURCES_MAX_IN_FLIGHT_PER_HOST,
      politeness: env.SOURCES_POLITENESS === "on",
      contactUrl: env.SOURCES_CONTACT_URL,
      requestTimeoutMs: env.SOURCES_REQUEST_TIMEOUT_MS,
      leaseMs: env.SOURCES_LEASE_MS,
      scheduleEveryMs: env.SOURCES_SCHEDULE_EVERY_MS,
    },
  };
}

/** Where traces go (OTLP/HTTP), or undefined: no endpoint, no tracing. */
export function tracingFromEnv(env: Env): TracingConfig | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "";
  if (!endpoint && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  return {
    endpoint,
    tracesEndpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    headers: parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    serviceName: env.OTEL_SERVICE_NAME,
  };
}

/**
 * The library's own settings. The server fills them from the environment (config/env.ts);
 * a host app embedding the plugin passes them directly. Every field has a default.
 */
import type { Plan } from "../contract/plans.ts";
import type { CorsOrigins } from "./cors-origins.ts";

/** Requests per minute and per day. */
export interface PlanLimits {
  rpm: number;
  rpd: number;
}

/** Settings of one Parley plugin instance. */
export interface ParleyOptions {
  /** Longest accepted `message`, in characters. */
  maxMessageChars: number;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Largest document `content` accepted by the document routes, in UTF-8 bytes (413 above). */
  maxDocumentBytes: number;
  /** Largest multipart upload (all files), in bytes (413 above). ndjson bodies are streamed and have no total limit. */
  maxUploadBytes: number;
  /** Longest wait between two chunks of a document upload's body before it is stopped (400). */
  uploadIdleMs: number;
  /** Comment keep-alive interval on idle SSE streams (must stay below the server's idle timeout). */
  keepAliveMs: number;
  /** Default limits per plan; an enterprise key always carries its own. */
  plans: Record<Exclude<Plan, "enterprise">, PlanLimits>;
  /**
   * How long a running reply's lease lasts. The generating instance renews it with every flush
   * and every quarter lease; when it has passed (the instance died), any instance ends the reply
   * as `failed`. A dead instance's reply is ended within about 1.5 leases (docs/reliability.md).
   */
  replyLeaseMs: number;
  /** A running reply's new events and text reach the store at most this long after they happen. */
  replyFlushMs: number;
  /**
   * How often a follower of a reply generated elsewhere reads the store even without a
   * notification (the safety net under LISTEN/NOTIFY, and what one process's instances sharing a
   * PGlite rely on).
   */
  replyPollMs: number;
  /**
   * REPLY_EVENTS_RETENTION: seconds after a reply was created before its events are compacted
   * (once it has ended): it then keeps its text, its non-token events and one offset per token
   * event, enough to resume from any id (docs/reliability.md).
   */
  replyEventsRetentionS: number;
  /** Switches the limiter off (benchmarks only: it measures what the limiter costs). */
  rateLimit: boolean;
  /**
   * How many proxies in front of Parley append to X-Forwarded-For: the client IP in the access log
   * is the address that many hops from its right end. 0: the socket's address, the header ignored.
   */
  trustProxy: number;
  /** Origins allowed by CORS (the standalone app only; a host app uses its own CORS). Unset: no CORS. */
  corsOrigins?: CorsOrigins;
  /** How long a visitor token (a public key's session, POST /v1/widget/sessions) is valid. */
  visitorTokenTtlMs: number;
  /**
   * A proof-of-work challenge's search space (ALTCHA's `maxnumber`): a browser tries about half of
   * it on average, and so does a script for every session it opens.
   */
  proofOfWorkMaxNumber: number;
  /** Analytics drop question text older than this many days (counts and topics stay); null keeps it. */
  analyticsRetentionDays: number | null;
  /** Web sources; see SourceOptions. */
  sources: SourceOptions;
}

/** How web sources crawl (src/sources/). */
export interface SourceOptions {
  /** Crawl private, loopback, link-local and metadata addresses (an intranet's docs). Off by default: SSRF. */
  allowPrivateNetworks: boolean;
  /** Requests in flight per host; Crawl-delay is obeyed whatever this says. */
  maxInFlightPerHost: number;
  /** False only for sites you own (benchmarks): no per-host cap, no Crawl-delay. */
  politeness: boolean;
  /** The User-Agent's contact URL, `Parley/<version> (+url)`: the instance's docs, where a site owner reads who crawls. */
  contactUrl?: string;
  /** Longest wait for one page (connect, headers and body); a slow page fails alone. */
  requestTimeoutMs: number;
  /** How long a running sync's lease lasts; its instance renews it, any instance ends it as failed after. */
  leaseMs: number;
  /** How often an instance looks for sources due for their scheduled sync (and syncs whose lease passed). */
  scheduleEveryMs: number;
}

export const DEFAULT_OPTIONS: ParleyOptions = {
  maxMessageChars: 32_000,
  maxBodyBytes: 256 * 1024,
  maxDocumentBytes: 1024 * 1024,
  maxUploadBytes: 64 * 1024 * 1024,
  uploadIdleMs: 30_000,
  keepAliveMs: 15_000,
  plans: { free: { rpm: 20, rpd: 1_000 }, pro: { rpm: 100, rpd: 10_000 } },
  rateLimit: true,
  trustProxy: 0,
  replyLeaseMs: 10_000,
  replyFlushMs: 100,
  replyPollMs: 1_000,
  replyEventsRetentionS: 86_400,
  visitorTokenTtlMs: 3_600_000,
  proofOfWorkMaxNumber: 100_000,
  analyticsRetentionDays: null,
  sources: {
    allowPrivateNetworks: false,
    maxInFlightPerHost: 2,
    politeness: true,
    requestTimeoutMs: 15_000,
    leaseMs: 30_000,
    scheduleEveryMs: 60_000,
  },
};

/** Largest value of a PostgreSQL integer column (limits, counts). */
export const INT4_MAX = 2_147_483_647;

/**
 * The bounds of every numeric option, written once: `env.ts` validates the variables with them,
 * `checkOptions` a host app's options. A 0 lease or flush interval would spin timers; a
 * keep-alive must stay well below the server's 30 s idle timeout.
 */
export const BOUNDS = {
  maxMessageChars: { min: 1, max: INT4_MAX },
  maxBodyBytes: { min: 1024, max: INT4_MAX },
  maxDocumentBytes: { min: 1024, max: INT4_MAX },
  maxUploadBytes: { min: 1024, max: INT4_MAX },
  uploadIdleMs: { min: 100, max: 3_600_000 },
  keepAliveMs: { min: 100, max: 25_000 },
  replyLeaseMs: { min: 1_000, max: 600_000 },
  replyFlushMs: { min: 10, max: 1_000 },
  replyPollMs: { min: 10, max: 60_000 },
  replyEventsRetentionS: { min: 0, max: 10 * 366 * 86_400 },
  planLimit: { min: 1, max: INT4_MAX },
  visitorTokenTtlMs: { min: 60_000, max: 86_400_000 },
  proofOfWorkMaxNumber: { min: 1_000, max: 100_000_000 },
  analyticsRetentionDays: { min: 1, max: 100 * 366 },
  maxInFlightPerHost: { min: 1, max: 32 },
  sourceLeaseMs: { min: 1_000, max: 3_600_000 },
  sourceRequestTimeoutMs: { min: 100, max: 120_000 },
  sourceScheduleEveryMs: { min: 100, max: 86_400_000 },
} as const;

/** Throws unless `v` is a whole number within `bound`. */
export function checkBound(name: string, v: number, bound: { min: number; max: number }): void {
  if (!Number.isSafeInteger(v) || v < bound.min || v > bound.max)
    throw new Error(`${name} must be an integer from ${bound.min} to ${bound.max}`);
}

/** A host app's options, refused at start rather than on the first request. */
export function checkOptions(options: ParleyOptions): void {
  for (const name of [
    "maxMessageChars",
    "maxBodyBytes",
    "maxDocumentBytes",
    "maxUploadBytes",
    "uploadIdleMs",
    "keepAliveMs",
    "replyLeaseMs",
    "replyFlushMs",
    "replyPollMs",
    "replyEventsRetentionS",
    "visitorTokenTtlMs",
    "proofOfWorkMaxNumber",
  ] as const)
    checkBound(`options.${name}`, options[name], BOUNDS[name]);
  for (const [plan, l] of Object.entries(options.plans)) {
    checkBound(`options.plans.${plan}.rpm`, l.rpm, BOUNDS.planLimit);
    checkBound(`options.plans.${plan}.rpd`, l.rpd, BOUNDS.planLimit);
  }
  if (options.analyticsRetentionDays !== null)
    checkBound("options.analyticsRetentionDays", options.analyticsRetentionDays, BOUNDS.analyticsRetentionDays);
  checkBound("options.sources.maxInFlightPerHost", options.sources.maxInFlightPerHost, BOUNDS.maxInFlightPerHost);
  checkBound("options.sources.leaseMs", options.sources.leaseMs, BOUNDS.sourceLeaseMs);
  checkBound("options.sources.requestTimeoutMs", options.sources.requestTimeoutMs, BOUNDS.sourceRequestTimeoutMs);
  checkBound("options.sources.scheduleEveryMs", options.sources.scheduleEveryMs, BOUNDS.sourceScheduleEveryMs);
}

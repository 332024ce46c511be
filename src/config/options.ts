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
  /** Switches the limiter off (benchmarks only: it measures what the limiter costs). */
  rateLimit: boolean;
  /**
   * How many proxies in front of Parley append to X-Forwarded-For: the client IP in the access log
   * is the address that many hops from its right end. 0: the socket's address, the header ignored.
   */
  trustProxy: number;
  /** Origins allowed by CORS (the standalone app only; a host app uses its own CORS). Unset: no CORS. */
  corsOrigins?: CorsOrigins;
}

export const DEFAULT_OPTIONS: ParleyOptions = {
  maxMessageChars: 32_000,
  maxBodyBytes: 256 * 1024,
  keepAliveMs: 15_000,
  plans: { free: { rpm: 20, rpd: 1_000 }, pro: { rpm: 100, rpd: 10_000 } },
  rateLimit: true,
  trustProxy: 0,
  replyLeaseMs: 10_000,
  replyFlushMs: 100,
};

/**
 * One API call over fetch: bounded retries with Retry-After or exponential backoff with jitter,
 * a timeout per attempt, and the caller's AbortSignal. What is retried follows the openai SDK:
 * connection errors, 408, 409, 429 and 5xx — for a request that is safe to repeat. A POST that
 * is not (a chat without an idempotency key) is retried only on 429: the limiter refused it
 * before anything ran, while after a connection error, a 408 or a 5xx it may have.
 */
import { ParleyError } from "./errors.ts";
import type { RequestOptions } from "./types.ts";

/** Client-wide settings the transport needs. */
export interface TransportOptions {
  /** Up to and excluding `/v1`, e.g. `https://chat.example.com` or `http://host/prefix`. */
  baseUrl: string;
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Milliseconds per attempt for a complete answer; for a stream, the longest silence. Default 120000. */
  timeout?: number;
  /** Retries on connection errors, 408, 409, 429 and 5xx; default 2. */
  maxRetries?: number;
  /** A Retry-After longer than this (ms, default 60000) is not waited for: the call fails with it. */
  maxRetryDelay?: number;
  /** The first retry's wait (ms) when the server sends no Retry-After; it doubles per retry, up to 8 s. Default 500. */
  retryBaseDelay?: number;
}

export const DEFAULTS = { timeout: 120_000, maxRetries: 2, maxRetryDelay: 60_000, retryBaseDelay: 500 };
const BACKOFF_CAP_MS = 8_000;

/** A response plus the attempt it belongs to: its signal, its timer and how to read its failures. */
export interface Call {
  res: Response;
  /** Aborts when the caller aborts or the attempt times out. */
  signal: AbortSignal;
  /** Restarts the timeout (a stream calls it on every chunk). */
  touch(): void;
  /** Stops the timer and unhooks the caller's signal. */
  end(): void;
  /** What a failure while reading the body means: the caller's abort, a timeout, or a broken connection. */
  failure(error: unknown): unknown;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Exponential backoff, capped, with up to 25% jitter down (so many clients spread out). */
export const backoffMs = (retry: number, base: number, random = Math.random()) =>
  Math.min(BACKOFF_CAP_MS, base * 2 ** retry) * (1 - 0.25 * random);

/** Waits `ms`; rejects with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** One attempt's controller: aborted by the caller's signal or by its own timer. */
function attempt(timeoutMs: number, outer?: AbortSignal) {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => controller.abort(outer!.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  if (outer?.aborted) onAbort();
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new ParleyError(0, "timeout", `No answer within ${timeoutMs} ms.`));
    }, timeoutMs);
  };
  touch();
  return {
    signal: controller.signal,
    touch,
    end() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
    failure(error: unknown): unknown {
      if (outer?.aborted) return outer.reason ?? error;
      if (timedOut)
        return new ParleyError(0, "timeout", `No complete answer within ${timeoutMs} ms.`, { cause: error });
      if (error instanceof ParleyError) return error;
      return new ParleyError(0, "connection_error", `Connection to the server failed: ${describe(error)}`, {
        cause: error,
      });
    },
  };
}

/** How one request differs from the default. */
export interface SendExtra {
  headers?: Record<string, string>;
  /**
   * Whether the request is safe to send again (default true: GET, DELETE, stop, a keyed chat).
   * False for a POST that is not: then only a 429 is retried (the server did nothing), never a
   * connection error, 408, 409 or 5xx (the lost or failed request may have reached the server).
   */
  idempotent?: boolean;
  /** A body sent as it is (ndjson text, FormData) instead of `body` as JSON; FormData sets its own type. */
  raw?: { body: string | Blob | FormData; contentType?: string };
}

/** The statuses the openai SDK retries: request timeout, conflict (a lock), rate limit, server errors. */
export const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** What `transport` returns. */
export type Send = (
  method: string,
  path: string,
  body?: unknown,
  opts?: RequestOptions,
  extra?: SendExtra,
) => Promise<Call>;

/** Returns `send(method, path, body?, options?, extra?)`: a 2xx Call, or throws ParleyError / the caller's abort reason. */
export function transport(o: TransportOptions): Send {
  const base = o.baseUrl.replace(/\/+$/, "");
  const doFetch = o.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  return async function send(method, path, body, opts = {}, extra = {}) {
    const timeout = opts.timeout ?? o.timeout ?? DEFAULTS.timeout;
    const maxRetries = opts.maxRetries ?? o.maxRetries ?? DEFAULTS.maxRetries;
    const maxDelay = o.maxRetryDelay ?? DEFAULTS.maxRetryDelay;
    const baseDelay = o.retryBaseDelay ?? DEFAULTS.retryBaseDelay;
    const headers: Record<string, string> = { ...extra.headers, authorization: `Bearer ${o.apiKey}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (extra.raw?.contentType) headers["content-type"] = extra.raw.contentType;
    for (let retry = 0; ; retry++) {
      const a = attempt(timeout, opts.signal);
      let res: Response;
      try {
        res = await doFetch(`${base}/v1${path}`, {
          method,
          headers,
          body: extra.raw ? extra.raw.body : body === undefined ? undefined : JSON.stringify(body),
          signal: a.signal,
        });
      } catch (error) {
        a.end();
        const failure = a.failure(error);
        // Only a connection that failed is retried: not a timeout, not the caller's abort.
        const connection = failure instanceof ParleyError && failure.code === "connection_error";
        if (!connection || extra.idempotent === false || retry >= maxRetries) throw failure;
        await sleep(backoffMs(retry, baseDelay), opts.signal);
        continue;
      }
      if (res.ok) return { res, ...a };
      let error: ParleyError;
      try {
        error = await ParleyError.fromResponse(res);
      } finally {
        a.end();
      }
      const retryable = extra.idempotent === false ? res.status === 429 : retryableStatus(res.status);
      if (retryable && retry < maxRetries) {
        const wait = error.retryAfter !== undefined ? error.retryAfter * 1000 : backoffMs(retry, baseDelay);
        if (wait <= maxDelay) {
          await sleep(wait, opts.signal);
          continue;
        }
      }
      throw error;
    }
  };
}

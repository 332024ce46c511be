/**
 * One GET of a crawled URL that cannot be turned against us: every redirect hop is re-judged by
 * the address guard and the caller's scope, the whole exchange has a deadline, the body has a byte
 * ceiling, and every failure comes back as a value. A crawl fetches thousands of pages; one throw
 * or one hang must not stop it, so nothing here throws and nothing waits without a timer.
 *
 * DNS rebinding: the guard resolves the host and checks every address, then fetch() resolves it
 * again to connect. A hostile name server can answer public the first time and private the second
 * (time-of-check to time-of-use). We narrow the window by checking right before each hop, with
 * every record judged, and by never following a redirect unchecked; the OS resolver's cache usually
 * returns the same answer twice. Closing it fully means connecting to the address we checked,
 * which needs a custom dispatcher (undici's Agent with a `connect.lookup`, or a runtime-specific
 * client) and is outside what Web-standard fetch offers. Deployments that need that guarantee
 * should also egress through a proxy that refuses private ranges.
 */
import { decodeBody } from "./charset.ts";
import { readBodyCapped } from "./read-body.ts";
import { createUrlGuard, parseHttpUrl, type UrlGuard, type UrlGuardOptions } from "./ssrf.ts";

export type FetchFailure =
  | "bad_url"
  | "bad_scheme"
  | "blocked_address"
  | "dns_failure"
  | "out_of_scope"
  | "timeout"
  | "aborted"
  | "too_large"
  | "redirect_loop"
  | "too_many_redirects"
  | "redirect_without_location"
  | "network_error"
  | `http_${number}`;

export interface FetchSuccess {
  ok: true;
  status: number;
  finalUrl: string;
  headers: Headers;
  /** Empty on a 304: the caller keeps the copy it already has. */
  bodyText: string;
  /** The body as read (empty on a 304): a PDF is bytes, not text. */
  bodyBytes: Uint8Array;
  etag: string | null;
  lastModified: string | null;
  contentType: string | null;
  notModified: boolean;
}

export interface FetchError {
  ok: false;
  /** The URL of the hop that failed (after redirects), so logs point at the real culprit. */
  url: string;
  reason: FetchFailure;
  /** The HTTP status when the failure is one (`http_404`); robots.txt handling needs it. */
  status?: number;
  detail?: string;
}

export type FetchResult = FetchSuccess | FetchError;

/** What the crawl stored from the last fetch of this URL; sent back as If-None-Match / If-Modified-Since. */
export interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

export interface SafeFetchOptions {
  /** `Parley/<version> (+<docs url>)`: site owners can see who crawls them and read why. */
  userAgent: string;
  /** Address check for each hop; defaults to createUrlGuard(addressPolicy). */
  guard?: UrlGuard;
  /** Used when no `guard` is given (allowPrivateNetworks, resolver). */
  addressPolicy?: UrlGuardOptions;
  /** The crawl's own limits (same site, under a path): a redirect out of scope stops there. */
  inScope?: (url: URL) => boolean;
  maxRedirects?: number;
  /** Deadline for the whole exchange, redirects and body included. */
  totalTimeoutMs?: number;
  /** Deadline for each hop, from request to the body's last byte. */
  requestTimeoutMs?: number;
  maxBytes?: number;
  validators?: Validators;
  accept?: string;
  /** The caller's own cancellation (the crawl was stopped). */
  signal?: AbortSignal;
}

export const FETCH_DEFAULTS = {
  maxRedirects: 5,
  totalTimeoutMs: 30_000,
  requestTimeoutMs: 15_000,
  maxBytes: 5 * 1024 * 1024,
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function requestHeaders(options: SafeFetchOptions): Headers {
  const headers = new Headers({ "user-agent": options.userAgent });
  headers.set("accept", options.accept ?? "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5");
  // Sent on every hop: the crawl stores the validators of the page it ended on under the URL it
  // asked for, so a permanent redirect's target is exactly where they match.
  if (options.validators?.etag) headers.set("if-none-match", options.validators.etag);
  if (options.validators?.lastModified) headers.set("if-modified-since", options.validators.lastModified);
  return headers;
}

/** Drops a body we will not read. Not awaited: a server that stalls must not stall us here. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/** A visited-set key: the fragment never reaches the server, so #a and #b are one request. */
function visitKey(url: URL): string {
  const copy = new URL(url);
  copy.hash = "";
  return copy.href;
}

export async function safeFetch(input: string | URL, options: SafeFetchOptions): Promise<FetchResult> {
  const first = parseHttpUrl(input);
  if (!first) return { ok: false, url: String(input), reason: "bad_url", detail: "not an http(s) URL" };
  const guard = options.guard ?? createUrlGuard(options.addressPolicy);
  const maxRedirects = options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects;
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const total = AbortSignal.timeout(options.totalTimeoutMs ?? FETCH_DEFAULTS.totalTimeoutMs);
  const headers = requestHeaders(options);
  const visited = new Set<string>();
  let url = first;

  for (let hop = 0; ; hop++) {
    const verdict = await guard(url);
    if (!verdict.ok) return { ok: false, url: url.href, reason: verdict.reason, detail: verdict.detail };
    if (options.inScope && !options.inScope(url)) return { ok: false, url: url.href, reason: "out_of_scope" };
    visited.add(visitKey(url));

    const perRequest = AbortSignal.timeout(options.requestTimeoutMs ?? FETCH_DEFAULTS.requestTimeoutMs);
    const signals = [total, perRequest, ...(options.signal ? [options.signal] : [])];
    const signal = AbortSignal.any(signals);
    // Why the signal fired: the caller's own abort is not a timeout.
    const failure = (): FetchError => ({
      ok: false,
      url: url.href,
      reason: options.signal?.aborted ? "aborted" : "timeout",
    });
    if (total.aborted) return failure();

    let response: Response;
    try {
      response = await fetch(url, { headers, redirect: "manual", signal });
    } catch (error) {
      if (signal.aborted) return failure();
      return { ok: false, url: url.href, reason: "network_error", detail: (error as Error).message };
    }

    if (REDIRECTS.has(response.status)) {
      discard(response);
      const location = response.headers.get("location");
      if (!location) return { ok: false, url: url.href, reason: "redirect_without_location", status: response.status };
      const next = parseHttpUrl(new URL(location, url));
      if (!next) return { ok: false, url: location, reason: "bad_scheme", detail: `redirect to ${location}` };
      if (visited.has(visitKey(next))) return { ok: false, url: next.href, reason: "redirect_loop" };
      if (hop + 1 > maxRedirects) return { ok: false, url: next.href, reason: "too_many_redirects" };
      url = next;
      continue;
    }

    const etag = response.headers.get("etag");
    const lastModified = response.headers.get("last-modified");
    const contentType = response.headers.get("content-type");
    const base = {
      status: response.status,
      finalUrl: url.href,
      headers: response.headers,
      etag,
      lastModified,
      contentType,
    };
    if (response.status === 304) {
      discard(response);
      return { ok: true, ...base, bodyText: "", bodyBytes: new Uint8Array(0), notModified: true };
    }
    if (!response.ok) {
      discard(response);
      return { ok: false, url: url.href, reason: `http_${response.status}`, status: response.status };
    }
    // A declared length over the ceiling is refused before a byte is read.
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > maxBytes) {
      discard(response);
      return { ok: false, url: url.href, reason: "too_large", detail: `content-length ${declared}` };
    }
    const read = await readBodyCapped(response.body, maxBytes, signal);
    if (!read.ok) {
      if (read.reason === "too_large") return { ok: false, url: url.href, reason: "too_large" };
      if (!signal.aborted) return { ok: false, url: url.href, reason: "network_error", detail: "body cut short" };
      return failure();
    }
    const bodyText = decodeBody(read.bytes, contentType).text;
    return { ok: true, ...base, bodyText, bodyBytes: read.bytes, notModified: false };
  }
}

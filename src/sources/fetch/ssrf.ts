/**
 * The guard every hop of a fetch passes before a connection is made: the scheme is http: or https:,
 * and every address the host name resolves to is public (ip-address.ts). One private record is
 * enough to refuse: a resolver that returns a public and a private address lets the client pick
 * either, so the public one proves nothing.
 *
 * IP literals in any spelling (http://2130706433/, http://0x7f.1/, http://[::ffff:127.0.0.1]/) need no
 * code of their own: the WHATWG URL parser canonicalises them to dotted IPv4 or compressed IPv6, and
 * that is what we judge.
 */
import { lookup } from "node:dns/promises";
import { isBlockedAddress, isIpLiteral } from "./ip-address.ts";

/** Returns every address (A and AAAA) a host name resolves to. Injected in tests so they never use the machine's DNS. */
export type Resolver = (hostname: string) => Promise<string[]>;

export type GuardRefusal = "bad_scheme" | "blocked_address" | "dns_failure";

export type GuardVerdict =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; url: URL | null; reason: GuardRefusal; detail: string };

/** Judges one URL before it is fetched. safeFetch takes one of these so tests (and callers) can substitute it. */
export type UrlGuard = (url: URL) => Promise<GuardVerdict>;

export interface UrlGuardOptions {
  /** Skip the address check (env SOURCES_ALLOW_PRIVATE_NETWORKS=true): for crawling an intranet on purpose. The scheme check stays. */
  allowPrivateNetworks?: boolean;
  /** Defaults to the system resolver (getaddrinfo, so /etc/hosts counts: "localhost" is refused). */
  resolve?: Resolver;
}

/** The system resolver through node:dns/promises (Bun, Node and Deno all provide it). */
export const systemResolver: Resolver = async (hostname) => {
  const records = await lookup(hostname, { all: true, verbatim: true });
  return records.map((r) => r.address);
};

/** Parses a string with the WHATWG parser, which is also what canonicalises numeric IPv4 forms. */
export function parseHttpUrl(input: string | URL): URL | null {
  try {
    const url = new URL(String(input));
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

export function createUrlGuard(options: UrlGuardOptions = {}): UrlGuard {
  const resolve = options.resolve ?? systemResolver;
  return async (url) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return { ok: false, url, reason: "bad_scheme", detail: `scheme ${url.protocol} is not fetched` };
    }
    // URL keeps the brackets on IPv6 hosts; a trailing dot ("localhost.") is the same name.
    const host = url.hostname.replace(/\.$/, "");
    if (options.allowPrivateNetworks) return { ok: true, url, addresses: [] };
    if (isIpLiteral(host)) {
      return isBlockedAddress(host)
        ? { ok: false, url, reason: "blocked_address", detail: `${host} is not a public address` }
        : { ok: true, url, addresses: [host] };
    }
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { ok: false, url, reason: "dns_failure", detail: `${host}: ${(error as Error).message}` };
    }
    if (addresses.length === 0) return { ok: false, url, reason: "dns_failure", detail: `${host} has no address` };
    const blocked = addresses.find((a) => isBlockedAddress(a));
    if (blocked !== undefined) {
      return { ok: false, url, reason: "blocked_address", detail: `${host} resolves to ${blocked}` };
    }
    return { ok: true, url, addresses };
  };
}

/** One-shot form of the guard, for callers that judge a single URL string. */
export async function checkUrl(input: string | URL, options: UrlGuardOptions = {}): Promise<GuardVerdict> {
  const url = parseHttpUrl(input);
  if (!url) return { ok: false, url: null, reason: "bad_scheme", detail: `${String(input)} is not an http(s) URL` };
  return createUrlGuard(options)(url);
}

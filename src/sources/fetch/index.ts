/**
 * The network half of web sources: fetching a documentation site's pages safely and politely.
 * Other folders import from here only.
 */
export { decodeBody } from "./charset.ts";
export { isBlockedAddress, isIpLiteral } from "./ip-address.ts";
export { HostLimiter, type HostLimiterOptions, LimiterClosedError } from "./politeness.ts";
export { fetchRobots, parseRobots, ROBOTS_AGENT, type RobotsRules, type RobotsSource } from "./robots.ts";
export {
  FETCH_DEFAULTS,
  type FetchError,
  type FetchFailure,
  type FetchResult,
  type FetchSuccess,
  type SafeFetchOptions,
  safeFetch,
  type Validators,
} from "./safe-fetch.ts";
export {
  checkUrl,
  createUrlGuard,
  type GuardRefusal,
  type GuardVerdict,
  parseHttpUrl,
  type Resolver,
  systemResolver,
  type UrlGuard,
  type UrlGuardOptions,
} from "./ssrf.ts";

/** Reads SOURCES_ALLOW_PRIVATE_NETWORKS: only the exact value "true" opens private networks. */
export function allowPrivateNetworksFromEnv(env: Record<string, string | undefined>): boolean {
  return env.SOURCES_ALLOW_PRIVATE_NETWORKS === "true";
}

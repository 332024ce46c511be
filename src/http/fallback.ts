/**
 * The /v1 catch-all for unknown routes (404) and methods (405). It is given the API's route
 * table when it is built: createParley builds the feature plugins first and passes their routes.
 */
import { Elysia } from "elysia";
import type { Logger } from "../config/logger.ts";
import { requestIdsAndErrors, urlOf } from "./core.ts";
import { ApiError, clip } from "./errors.ts";

/** A route as the fallback sees it: method plus path with `:params`, relative to the API's base. */
export interface RouteRef {
  method: string;
  path: string;
}

/**
 * Catch-all for the API prefix: 405 with Allow when the path exists, else 404. The body is
 * never read (`parse: "none"`): a route that does not exist must not spend memory on it, nor
 * answer 400 for it.
 */
export const fallback = (logger: Logger, routes: RouteRef[]) => {
  const patterns = routePatterns(routes);
  return new Elysia().use(requestIdsAndErrors(logger)).all(
    "/*",
    ({ request, route }) => {
      // `route` is this catch-all as mounted ("/api/v1/*" under a host's "/api"): what follows its
      // base is the path within the API. One trailing slash is as good as none, like on real routes.
      const pathname = urlOf(request).pathname;
      const path = pathname.slice(route.length - 2).replace(/\/$/, "");
      throw (
        notAllowed(patterns, request.method, path) ??
        new ApiError("not_found", `No route ${request.method} ${clip(pathname)}.`)
      );
    },
    { parse: "none" },
  );
};

/** A route path with `:params` as a regular expression over concrete paths. */
export function pathPattern(path: string): RegExp {
  const body = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}$`);
}

/** Routes as patterns, for notAllowed. */
export function routePatterns(routes: RouteRef[]): { method: string; re: RegExp }[] {
  return routes.filter((r) => r.method !== "ALL").map((r) => ({ method: r.method, re: pathPattern(r.path) }));
}

/** 405 with Allow when `path` is a route that takes other methods than `method`; else undefined. */
export function notAllowed(patterns: { method: string; re: RegExp }[], method: string, path: string) {
  const allowed = [...new Set(patterns.filter((r) => r.re.test(path)).map((r) => r.method))];
  if (allowed.length === 0 || allowed.includes(method)) return undefined;
  return new ApiError("method_not_allowed", `${clip(method, 20)} is not allowed here; use ${allowed.join(", ")}.`, {
    headers: { allow: allowed.join(", ") },
  });
}

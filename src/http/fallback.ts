/**
 * The /v1 catch-all for unknown routes (404) and methods (405). It is given the API's route
 * table when it is built: createParley builds the feature plugins first and passes their routes.
 */
import { Elysia } from "elysia";
import type { Logger } from "../config/logger.ts";
import { httpCore } from "./core.ts";
import { ApiError } from "./errors.ts";
import { urlOf } from "./request-id.ts";
import { clip } from "./text.ts";

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
  const patterns = routes.filter((r) => r.method !== "ALL").map((r) => ({ method: r.method, re: pathPattern(r.path) }));
  return new Elysia().use(httpCore(logger)).all(
    "/*",
    ({ request, route }) => {
      // `route` is this catch-all as mounted ("/api/v1/*" under a host's "/api"): what follows its
      // base is the path within the API. One trailing slash is as good as none, like on real routes.
      const pathname = urlOf(request).pathname;
      const path = pathname.slice(route.length - 2).replace(/\/$/, "");
      const allowed = patterns.filter((r) => r.re.test(path)).map((r) => r.method);
      if (allowed.length > 0 && !allowed.includes(request.method)) {
        throw new ApiError("method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(", ")}.`, {
          headers: { allow: allowed.join(", ") },
        });
      }
      throw new ApiError("not_found", `No route ${request.method} ${clip(pathname)}.`);
    },
    { parse: "none" },
  );
};

function pathPattern(path: string): RegExp {
  const body = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}$`);
}

/**
 * GET /v1/usage: a key's usage by UTC day (requests, chat turns, tokens, refusals). Admins may
 * read another key's (`key_id`) or every key's (`key_id=all`). The counting itself happens in
 * the database, inside statements requests already run: usage/ owns `usage_daily`, its triggers
 * and the refusal count it gives the gate (counts.ts).
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, admission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { UsageQuery, UsageReport } from "./model.ts";
import { keyExists, usageOf, utcDay } from "./service.ts";

export { refusalCount } from "./counts.ts";

/** The longest range one request may ask for. */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;

function day(v: string | undefined, name: string, fallback: string): string {
  if (v === undefined) return fallback;
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  if (Number.isNaN(t) || utcDay(t) !== v) {
    throw new ApiError("invalid_request", `Invalid query parameter '${name}': expected a date as YYYY-MM-DD.`, {
      param: name,
    });
  }
  return v;
}

export const usageRoutes = (deps: AdmissionDeps & { logger: Logger }) =>
  new Elysia({ prefix: "/usage", tags: ["Usage"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps))
    .get(
      "",
      async ({ query, apiKey }) => {
        const to = day(query.to, "to", utcDay(deps.now()));
        const from = day(query.from, "from", utcDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS));
        const span = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
        if (span < 1 || span > MAX_USAGE_DAYS) {
          throw new ApiError(
            "invalid_request",
            `'from' must be on or before 'to', at most ${MAX_USAGE_DAYS} days apart.`,
            {
              param: "from",
            },
          );
        }
        let keys: string[] | "all" = [apiKey.id];
        if (query.key_id !== undefined && query.key_id !== apiKey.id) {
          // The same refusal as adminAdmission's (auth/): this route serves chat keys their own usage.
          if (apiKey.role !== "admin")
            throw new ApiError(
              "permission_denied",
              "Another key's usage needs an admin key; this key's role is 'chat'.",
            );
          if (query.key_id === "all") keys = "all";
          else if (await keyExists(deps.db, query.key_id)) keys = [query.key_id];
          else throw notFound("key", query.key_id, "key_id");
        }
        const rows = await usageOf(deps.db, keys, from, to);
        return {
          object: "usage" as const,
          from,
          to,
          data: rows.map((r) => ({ key_id: r.keyId, key_name: r.keyName, days: r.days, totals: r.totals })),
        };
      },
      {
        query: UsageQuery,
        response: { 200: UsageReport, ...ErrorResponses, 403: ErrorResponses[401] },
        detail: routeDoc(
          "Usage by day",
          "The calling key's usage per UTC day: admitted requests, chat turns, model tokens in and out, and 429 refusals. Counts are exact across instances.",
          { operationId: "getUsage", success: "UsageReport" },
        ),
      },
    );
export { UsageReport } from "./model.ts";

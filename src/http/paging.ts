/** What every cursor-paged list shares: its query (limit, cursor) and its `pagination` object. */
import { type Static, t } from "elysia";
import type { Pagination as WirePagination } from "../contract/resources.ts";
import { urlOf } from "./core.ts";
import { ApiError } from "./errors.ts";
import type { Same } from "./schema-contract.ts";

export const Pagination = t.Object({
  has_more: t.Boolean(),
  next_cursor: t.Union([t.String(), t.Null()], {
    description: "Pass as `cursor` for the next page; null on the last page.",
  }),
});

const LIMIT_MESSAGE = "Invalid query parameter 'limit': it must be an integer from 1 to 100.";

export const PageQuery = t.Object({
  limit: t.Optional(
    t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Items per page, 1–100.", error: LIMIT_MESSAGE }),
  ),
  cursor: t.Optional(
    t.String({
      description: "pagination.next_cursor of the previous page.",
      error: "Invalid query parameter 'cursor': pass pagination.next_cursor from a previous page as it is.",
    }),
  ),
});

/** A transform hook: the schema coerces with Number() ("1e2", "0x10"); a page size is plain digits, given once. */
export function plainLimit({ request }: { request: Request }) {
  const raw = urlOf(request).searchParams.getAll("limit");
  if (raw.length > 1 || (raw.length === 1 && !/^\d{1,3}$/.test(raw[0]!))) {
    throw new ApiError("invalid_request", LIMIT_MESSAGE, { param: "limit" });
  }
}

true satisfies Same<Static<typeof Pagination>, WirePagination>;

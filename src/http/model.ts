/** Wire schema of the error body, shared by every route's documentation. */
import { t } from "elysia";
import { ERROR_CODES } from "./errors.ts";

export const ErrorPayload = t.Object({
  type: t.String({ examples: ["invalid_request_error"] }),
  code: t.Union(ERROR_CODES.map((c) => t.Literal(c))),
  message: t.String(),
  param: t.Optional(t.String({ description: "The offending field or parameter, when there is one." })),
});

export const ErrorBody = t.Object({ error: ErrorPayload, request_id: t.String() }, { description: "Every non-2xx answer." });

/** The error answers every authenticated route can give. */
export const ErrorResponses = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody, 500: ErrorBody, 503: ErrorBody };

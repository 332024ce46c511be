/** Wire schema of the error body, shared by every route's documentation. */
import { type Static, t } from "elysia";
import {
  ERROR_CODES,
  type ErrorBody as WireErrorBody,
  type ErrorPayload as WireErrorPayload,
} from "../contract/errors.ts";
import { literals, type Same } from "./schema-contract.ts";

export const ErrorPayload = t.Object({
  type: t.String({ examples: ["invalid_request_error"] }),
  code: literals(ERROR_CODES),
  message: t.String(),
  param: t.Optional(t.String({ description: "The offending field or parameter, when there is one." })),
});

export const ErrorBody = t.Object(
  { error: ErrorPayload, request_id: t.String() },
  { description: "Every non-2xx answer." },
);

true satisfies Same<Static<typeof ErrorPayload>, WireErrorPayload>;
true satisfies Same<Static<typeof ErrorBody>, WireErrorBody>;

/** The error answers every authenticated route can give. */
export const ErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
};

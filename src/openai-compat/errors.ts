/**
 * Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}, "request_id"}` with
 * the same status, so the `openai` SDKs raise their typed classes (AuthenticationError,
 * NotFoundError, BadRequestError, RateLimitError…). `param` is always present (null when none),
 * as OpenAI sends it; `code` is Parley's code.
 */
import { Elysia } from "elysia";
import type { ErrorBody, ErrorPayload } from "../contract/errors.ts";
import { shapeErrorsOf } from "../http/error-handler.ts";
import { urlOf } from "../http/request-id.ts";

export const openAiError = (e: ErrorPayload) => ({
  error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code },
});

const openAiBody = (b: ErrorBody) => ({ ...openAiError(b.error), request_id: b.request_id });

/** This door's paths, wherever the API is mounted. */
const OWN_PATH = /\/(chat\/completions|models(\/[^/]+)?)\/?$/;

/**
 * Marks this door's requests before anything else runs (onRequest is global: hence the path test): an error hook answers them in OpenAI's
 * shape whichever plugin's hook it is (the host app's, or another feature's scoped one, may
 * come first).
 */
export const openAiErrors = () =>
  new Elysia().onRequest(({ request }) => {
    if (OWN_PATH.test(urlOf(request).pathname)) shapeErrorsOf(request, openAiBody);
  });

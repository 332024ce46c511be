/**
 * Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}, "request_id"}` with
 * the same status, so the `openai` SDKs raise their typed classes (AuthenticationError,
 * NotFoundError, BadRequestError, RateLimitError…). `param` is always present (null when none),
 * as OpenAI sends it; `code` is Parley's code.
 */
import type { ErrorBody, ErrorPayload } from "../contract/errors.ts";
import { errorDialect } from "../http/core.ts";

export const openAiError = (e: ErrorPayload) => ({
  error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code },
});

const openAiBody = (b: ErrorBody) => ({ ...openAiError(b.error), request_id: b.request_id });

/** This door's paths, wherever the API is mounted. */
const OWN_PATH = /\/(chat\/completions|models(\/[^/]+)?|responses(\/[^/]+)?)\/?$/;

/** This door's errors in OpenAI's shape, whichever plugin's error hook answers them (http/core.ts). */
export const openAiErrors = () => errorDialect(OWN_PATH, openAiBody);

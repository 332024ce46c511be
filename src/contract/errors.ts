/**
 * The one closed set of error codes. Every non-2xx answer and every SSE `error` event uses one
 * of them, so a code always maps to the same status and type (docs/api.md#errors).
 */
export const CODES = {
  invalid_request: { status: 400, type: "invalid_request_error" },
  invalid_json: { status: 400, type: "invalid_request_error" },
  invalid_cursor: { status: 400, type: "invalid_request_error" },
  unauthorized: { status: 401, type: "authentication_error" },
  key_expired: { status: 401, type: "authentication_error" },
  token_expired: { status: 401, type: "authentication_error" },
  permission_denied: { status: 403, type: "permission_error" },
  invalid_setup_code: { status: 403, type: "permission_error" },
  proof_of_work_required: { status: 403, type: "permission_error" },
  not_found: { status: 404, type: "invalid_request_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  idempotency_in_progress: { status: 409, type: "invalid_request_error" },
  reply_in_progress: { status: 409, type: "invalid_request_error" },
  already_exists: { status: 409, type: "invalid_request_error" },
  last_admin: { status: 409, type: "invalid_request_error" },
  setup_closed: { status: 409, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  idempotency_key_reused: { status: 422, type: "invalid_request_error" },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  daily_quota_exceeded: { status: 429, type: "rate_limit_error" },
  token_quota_exceeded: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
  generation_failed: { status: 500, type: "api_error" },
  service_unavailable: { status: 503, type: "api_error" },
  upstream_error: { status: 502, type: "api_error" },
  upstream_timeout: { status: 504, type: "api_error" },
} as const;

/** A code from the closed set; see docs/api.md#errors. */
export type ErrorCode = keyof typeof CODES;
export const ERROR_CODES = Object.keys(CODES) as ErrorCode[];

/** The `error` member of every error body and of the SSE `error` event. */
export interface ErrorPayload {
  type: string;
  code: ErrorCode;
  message: string;
  param?: string;
}

/** The JSON body of every non-2xx response. */
export interface ErrorBody {
  error: ErrorPayload;
  request_id: string;
}

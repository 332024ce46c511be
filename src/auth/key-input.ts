/**
 * What a key's fields must be, checked the same way for the CLI's `keys …` and /v1/keys: a
 * failure is an ApiError with the field's `param` (the CLI prints its message as it is).
 */
import { parseDateTime } from "../http/date-time.ts";
import { ApiError } from "../http/errors.ts";
import { checkLimits, type KeyLimits } from "./limits.ts";

export const invalid = (param: string, message: string) => new ApiError("invalid_request", message, { param });

/** checkLimits' plain Error as the client's 400. */
export function limitsOk(limits: KeyLimits): void {
  try {
    checkLimits(limits);
  } catch (error) {
    const message = (error as Error).message;
    const param = /^(rpm|rpd|tpd)/.exec(message)?.[1] ?? (message.startsWith("plan") ? "plan" : "rpm");
    throw invalid(param, message.replace("--rpm and --rpd", "rpm and rpd"));
  }
}

/** Control characters (as knowledge base names): a NUL cannot be stored at all, the others would break `keys list`'s lines. */
const CONTROL = /\p{Cc}/u;

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw invalid("name", "name must be 1–200 characters.");
  const control = CONTROL.exec(trimmed)?.[0];
  if (control) {
    const code = `U+${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    throw invalid(
      "name",
      `name must not contain control characters; it contains ${code === "U+0000" ? "NUL (U+0000)" : code}.`,
    );
  }
  return trimmed;
}

export function checkExpiry(expiresAt: Date | null | undefined, now: Date): void {
  if (expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()))
    throw invalid("expires_at", "expires_at must be a date-time in the future.");
}

/** The wire's `expires_at`: a strict RFC 3339 date-time (date, time and offset), null, or absent. */
export function wireExpiry(value: string | null | undefined): Date | null | undefined {
  if (value == null) return value;
  const at = parseDateTime(value);
  if (!at)
    throw invalid(
      "expires_at",
      "Invalid field 'expires_at': an RFC 3339 date-time with its time and offset (e.g. 2030-01-31T12:00:00Z), a real day of years 1–9999.",
    );
  return at;
}

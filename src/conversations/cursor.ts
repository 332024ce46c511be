/**
 * The list cursor: base64url of the last row's keyset position `(created_at, id)`.
 * Opaque to clients; anything that does not decode to exactly that shape is a 400.
 */
import { ApiError } from "../http/errors.ts";
import { isId } from "../ids.ts";

/** Position after which the next page starts (newest-first order). */
export interface Cursor {
  createdAt: number;
  id: string;
}

const toB64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export function encodeCursor(c: Cursor): string {
  return toB64url(JSON.stringify({ v: 1, t: c.createdAt, id: c.id }));
}

// 9999-12-31T23:59:59.999Z: later instants have no four-digit-year ISO form the database accepts.
const MAX_TIME = 253402300799999;

const invalid = () =>
  new ApiError("invalid_cursor", "The cursor is not valid; pass pagination.next_cursor from a previous page as it is.", {
    param: "cursor",
  });

export function decodeCursor(raw: string): Cursor {
  if (raw.length === 0 || raw.length > 256 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(raw.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    throw invalid();
  }
  const p = parsed as { v?: unknown; t?: unknown; id?: unknown } | null;
  if (
    !p ||
    typeof p !== "object" ||
    Object.keys(p).length !== 3 ||
    p.v !== 1 ||
    typeof p.t !== "number" ||
    !Number.isSafeInteger(p.t) ||
    p.t < 0 ||
    p.t > MAX_TIME ||
    typeof p.id !== "string" ||
    !isId("conv", p.id)
  ) {
    throw invalid();
  }
  return { createdAt: p.t, id: p.id };
}

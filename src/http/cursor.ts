/**
 * The list cursor: base64url of the last row's keyset position `(created_at, id)` followed by
 * a 16-byte HMAC-SHA-256 tag, keyed by a secret every instance shares (it lives in the
 * database). Opaque to clients; anything the server did not produce — a hand-edited position
 * included — is a 400, never a query.
 */

import type { Db } from "../db/client.ts";
import { sharedHmacKey } from "../db/rows.ts";
import { ApiError } from "../http/errors.ts";
import { fromBase64url, type IdPrefix, isId, toBase64url } from "../primitives.ts";

/** Position after which the next page starts (newest-first order). */
export interface Cursor {
  createdAt: number;
  id: string;
}

/**
 * What a cursor pages, by the prefix of its ids: the key's conversations (`conv`), keys (`key`)
 * and knowledge bases (`kb`), unscoped; one conversation's messages (`msg`) or one knowledge
 * base's documents (`doc`), scoped to it: a cursor from another one is invalid.
 */
export type CursorKind = { prefix: IdPrefix; scope?: string };

const TAG_BYTES = 16;
// 9999-12-31T23:59:59.999Z: later instants have no four-digit-year ISO form the database accepts.
const MAX_TIME = 253402300799999;

/** The shared signing key (db/rows.ts). */
const signingKey = (db: Db) => sharedHmacKey(db, "cursor_hmac");

async function tag(db: Db, payload: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(db), payload)).slice(0, TAG_BYTES);
}

export async function encodeCursor(db: Db, c: Cursor, scope?: string): Promise<string> {
  const fields =
    scope === undefined ? { v: 1, t: c.createdAt, id: c.id } : { v: 1, t: c.createdAt, id: c.id, s: scope };
  const payload = new TextEncoder().encode(JSON.stringify(fields));
  const out = new Uint8Array(payload.length + TAG_BYTES);
  out.set(payload);
  out.set(await tag(db, payload), payload.length);
  return toBase64url(out);
}

const invalid = () =>
  new ApiError(
    "invalid_cursor",
    "The cursor is not valid; pass pagination.next_cursor from a previous page as it is.",
    {
      param: "cursor",
    },
  );

export async function decodeCursor(db: Db, raw: string, kind: CursorKind = { prefix: "conv" }): Promise<Cursor> {
  if (raw.length === 0 || raw.length > 256 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalid();
  let bytes: Uint8Array;
  try {
    bytes = fromBase64url(raw);
  } catch {
    throw invalid();
  }
  if (bytes.length <= TAG_BYTES) throw invalid();
  const payload = bytes.slice(0, -TAG_BYTES);
  const expected = await tag(db, payload);
  // Constant time: how much of a forged tag matched must not show in the timing.
  let diff = 0;
  for (let i = 0; i < TAG_BYTES; i++) diff |= expected[i]! ^ bytes[payload.length + i]!;
  if (diff !== 0) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    throw invalid();
  }
  // Signed by us, so the shape holds unless the format changed: check it all the same.
  const p = parsed as { v?: unknown; t?: unknown; id?: unknown; s?: unknown } | null;
  if (
    !p ||
    typeof p !== "object" ||
    Object.keys(p).length !== (kind.scope === undefined ? 3 : 4) ||
    p.s !== kind.scope ||
    p.v !== 1 ||
    typeof p.t !== "number" ||
    !Number.isSafeInteger(p.t) ||
    p.t < 0 ||
    p.t > MAX_TIME ||
    typeof p.id !== "string" ||
    !isId(kind.prefix, p.id)
  ) {
    throw invalid();
  }
  return { createdAt: p.t, id: p.id };
}

/**
 * Visitor tokens: what a public key's session hands a page (`pvt_<payload>.<tag>`), its Bearer
 * credential from then on. The payload names the key, the visitor and the page's origin, and
 * when it expires; the tag is an HMAC-SHA-256 under a key every instance shares (db/rows.ts), so
 * any instance verifies any token without a lookup. The token is not a key: the gate still loads
 * the key it names on every request, so revoking the key ends its visitors' tokens at once.
 */
import type { Db } from "../db/client.ts";
import { sharedHmacKey } from "../db/rows.ts";
import { fromBase64url, toBase64url } from "../primitives.ts";

/** How long an expired token may still be exchanged for a new one (POST /v1/widget/sessions), keeping its visitor. */
export const REFRESH_WINDOW_MS = 7 * 86_400_000;

const FORMAT = /^pvt_([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{43})$/;

export interface VisitorClaims {
  keyId: string;
  visitorId: string;
  origin: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

const signingKey = (db: Db) => sharedHmacKey(db, "visitor_token_hmac");
const encoder = new TextEncoder();

async function tag(db: Db, payload: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(db), encoder.encode(`pvt\n${payload}`)));
}

export const looksLikeVisitorToken = (credential: string) => credential.startsWith("pvt_");

export async function signVisitorToken(db: Db, claims: VisitorClaims): Promise<string> {
  const payload = toBase64url(
    encoder.encode(
      JSON.stringify({
        k: claims.keyId,
        v: claims.visitorId,
        o: claims.origin,
        e: Math.floor(claims.expiresAt / 1000),
      }),
    ),
  );
  return `pvt_${payload}.${toBase64url(await tag(db, payload))}`;
}

/** What a presented token is worth at `now`: its claims (and whether it expired), or null for one we did not issue. */
export async function verifyVisitorToken(
  db: Db,
  token: string,
  now: number,
): Promise<(VisitorClaims & { expired: boolean }) | null> {
  const m = FORMAT.exec(token);
  if (!m) return null;
  let given: Uint8Array;
  try {
    given = fromBase64url(m[2]!);
  } catch {
    return null;
  }
  const expected = await tag(db, m[1]!);
  // Constant time: how much of a forged tag matched must not show in the timing.
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ (given[i] ?? 0);
  if (diff !== 0) return null;
  const claims = JSON.parse(new TextDecoder().decode(fromBase64url(m[1]!))) as {
    k: string;
    v: string;
    o: string;
    e: number;
  };
  const expiresAt = claims.e * 1000;
  return { keyId: claims.k, visitorId: claims.v, origin: claims.o, expiresAt, expired: expiresAt <= now };
}

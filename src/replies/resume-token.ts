/**
 * A reply's resume token, sent in its `start` event (`resume_token`): what a browser's
 * EventSource, which cannot send an Authorization header, passes as `?token=` on that reply's
 * events route. It is `v1.<expiry, Unix seconds>.<tag>`, the tag a 16-byte HMAC-SHA-256 over the
 * conversation id, the reply id and the expiry, keyed by a secret every instance shares (it
 * lives in the database, like the list cursor's, under its own name). So it names no key and
 * carries no secret: it is worth one reply's events for an hour, on any instance, and the route
 * admits it as the reply's owner key (conversations/replies.ts).
 */
import type { Db } from "../db/client.ts";
import { sharedValue } from "../db/instance-values.ts";
import { fromBase64url, toBase64url } from "../primitives.ts";

/** How long a reply's resume token is accepted, from the reply's start. */
export const RESUME_TOKEN_TTL_MS = 3_600_000;

const TAG_BYTES = 16;
const FORMAT = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/;

const keys = new WeakMap<Db, Promise<CryptoKey>>();

/** The shared signing key: created by the first instance to need it, then read by all. */
function signingKey(db: Db): Promise<CryptoKey> {
  let key = keys.get(db);
  if (!key) {
    key = (async () => {
      const fresh = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
      const value = await sharedValue(db, "resume_token_hmac", fresh);
      return crypto.subtle.importKey("raw", fromBase64url(value), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    })();
    // A failed read (database down) must not stick: the next request tries again.
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

async function tag(db: Db, conversationId: string, replyId: string, expires: number): Promise<Uint8Array> {
  const payload = new TextEncoder().encode(`resume\n${conversationId}\n${replyId}\n${expires}`);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(db), payload)).slice(0, TAG_BYTES);
}

/** The token for reply `replyId` of `conversationId`, accepted until `expiresAt` (ms since the epoch). */
export async function resumeToken(db: Db, conversationId: string, replyId: string, expiresAt: number): Promise<string> {
  const expires = Math.floor(expiresAt / 1_000);
  return `v1.${expires}.${toBase64url(await tag(db, conversationId, replyId, expires))}`;
}

/** What a presented token is worth for reply `replyId` of `conversationId` at `now`. */
export type TokenCheck = { ok: true } | { ok: false; why: "invalid" } | { ok: false; why: "expired"; at: Date };

export async function checkResumeToken(
  db: Db,
  token: string,
  conversationId: string,
  replyId: string,
  now: number,
): Promise<TokenCheck> {
  const m = FORMAT.exec(token);
  if (!m) return { ok: false, why: "invalid" };
  const expires = Number(m[1]);
  let given: Uint8Array;
  try {
    given = fromBase64url(m[2]!);
  } catch {
    return { ok: false, why: "invalid" };
  }
  const expected = await tag(db, conversationId, replyId, expires);
  // Constant time: how much of a forged tag matched must not show in the timing.
  let diff = given.length ^ TAG_BYTES;
  for (let i = 0; i < TAG_BYTES; i++) diff |= expected[i]! ^ (given[i] ?? 0);
  if (diff !== 0) return { ok: false, why: "invalid" };
  // Checked after the tag: only a token we issued is told apart as expired.
  if (expires * 1_000 <= now) return { ok: false, why: "expired", at: new Date(expires * 1_000) };
  return { ok: true };
}

/**
 * Proof of work for public keys that ask for it: ALTCHA's protocol (altcha-lib, self-hosted; no
 * third party sees a visitor). A challenge is signed with a key every instance shares, names its
 * public key and expires; a solution opens ONE session: its signature is recorded in
 * `spent_proofs` by a conditional insert, so a replayed proof finds it there, on any instance.
 */
import { createChallenge, extractParams, verifySolution } from "altcha-lib/v1";
import { lt, sql } from "drizzle-orm";
import type { WidgetChallenge } from "../contract/widget.ts";
import type { Db } from "../db/client.ts";
import { sharedValue } from "../db/instance-values.ts";
import { spentProofs } from "../db/schema.ts";
import { toBase64url } from "../primitives.ts";

/** How long a challenge may take to solve and spend. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
const hmacKeyOf = (db: Db) =>
  sharedValue(db, "widget_proof_hmac", toBase64url(crypto.getRandomValues(new Uint8Array(32))));

/**
 * A challenge for key `keyId` whose solution lies in 0..`maxNumber` (the proofOfWorkMaxNumber
 * option; its default of 100,000 is well under a second on a phone, SHA-256 in Web Crypto).
 */
export async function issueChallenge(db: Db, keyId: string, now: number, maxNumber: number): Promise<WidgetChallenge> {
  const challenge = await createChallenge({
    hmacKey: await hmacKeyOf(db),
    maxnumber: maxNumber,
    expires: new Date(now + CHALLENGE_TTL_MS),
    params: { key: keyId },
  });
  return {
    algorithm: "SHA-256",
    challenge: challenge.challenge,
    maxnumber: challenge.maxnumber ?? maxNumber,
    salt: challenge.salt,
    signature: challenge.signature,
  };
}

/** The solved challenge as the widget sends it: base64 of its JSON. */
function decodeProof(proof: string): { signature: string; salt: string } | null {
  try {
    const payload = JSON.parse(atob(proof)) as { signature?: unknown; salt?: unknown };
    return typeof payload.signature === "string" && typeof payload.salt === "string"
      ? { signature: payload.signature, salt: payload.salt }
      : null;
  } catch {
    return null;
  }
}

/** Why a proof does not open a session, or null when it does (and is now spent). */
export async function spendProof(db: Db, keyId: string, proof: string, now: number): Promise<string | null> {
  const payload = decodeProof(proof);
  if (!payload || proof.length > 4096) return "The proof is not a solved challenge (base64 JSON).";
  // verifySolution checks the signature, the solution and the expiry in the salt.
  if (!(await verifySolution(proof, await hmacKeyOf(db), true).catch(() => false)))
    return "The proof does not solve a live challenge; fetch a new one (POST /v1/widget/challenges).";
  if (extractParams(payload as never).key !== keyId) return "The proof's challenge was issued for another key.";
  const spent = await db
    .insert(spentProofs)
    .values({ signature: payload.signature, expiresAt: new Date(now + CHALLENGE_TTL_MS) })
    .onConflictDoNothing()
    .returning({ signature: spentProofs.signature });
  return spent.length === 1 ? null : "This proof was already used; solve a new challenge.";
}

/** Forgets spent proofs whose challenges have expired (they can no longer verify anyway). */
export async function forgetSpentProofs(db: Db, now: number): Promise<void> {
  await db.delete(spentProofs).where(lt(spentProofs.expiresAt, sql`${new Date(now).toISOString()}::timestamptz`));
}

/**
 * The API key format. Secrets are `prl_` + 32 random bytes (base64url); only their SHA-256 is
 * stored, with the first characters kept as a display prefix so people can tell keys apart.
 * Also the lookup of a key by its secret, the throttled `last_used_at` touch, and how a request
 * names its key: its Bearer secret (`Authorization`), or — only without that header, and only
 * where a route accepts one — the route's own credential (the events route's resume token,
 * conversations/replies.ts). Either way the gate gets the key's stored hash and admits, counts
 * and limits the request as that key's.
 */
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { getOrCreate } from "../db/rows.ts";
import { apiKeys } from "../db/schema.ts";
import { urlOf } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { sha256Hex, toBase64url } from "../primitives.ts";
import { type ApiKeyInfo, apiKeyOf, tokensTodaySql } from "../ratelimit/index.ts";
import { verifyVisitorToken } from "./visitor-token.ts";
import type { Presented } from "./visitors.ts";

/** `prl_…` for chat and admin keys; `pk_…` for public keys (they may sit in a web page). */
const SECRET_RE = /^(prl|pk)_[A-Za-z0-9_-]{43}$/;
/** How much of the secret `keys list` shows. */
export const DISPLAY_PREFIX_LENGTH = 12;

/** A new random secret, shown to its owner once (a public key's in full: its `prefix` is all of it). */
export function generateSecret(role?: string): string {
  return `${role === "public" ? "pk" : "prl"}_${toBase64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

export const isWellFormedSecret = (secret: string): boolean => SECRET_RE.test(secret);

/** Hex SHA-256 of the secret: what the database stores and looks up by. */
export const hashSecret = (secret: string): Promise<string> => sha256Hex(secret);

/** Extracts the secret from `Authorization: Bearer <secret>`; null when absent or malformed. */
export function bearerSecret(header: string | null | undefined): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1] && isWellFormedSecret(match[1]) ? match[1] : null;
}

/** Every request runs this lookup: prepared once per database, so only the hash is bound. */
const lookups = new WeakMap<Db, ReturnType<typeof lookupStatement>>();
const lookupStatement = (db: Db) =>
  db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      plan: apiKeys.plan,
      rpm: apiKeys.rpm,
      rpd: apiKeys.rpd,
      role: apiKeys.role,
      // One round trip: the key's grants come with it.
      knowledgeBaseIds: sql<
        string[]
      >`array(select g.kb_id from key_knowledge_bases g where g.key_id = "api_keys"."id" order by 1)`,
      expiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
      tpd: apiKeys.tpd,
      tokensToday: tokensTodaySql(sql.placeholder("day")),
      widget: apiKeys.widget,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .prepare("parley_key_lookup_v4");

/** The live (unrevoked) key whose secret hashes to the stored hash, or null. No cache: revocation is immediate. */
export async function findKeyBySecret(
  db: Db,
  secret: string,
  day = new Date().toISOString().slice(0, 10),
): Promise<ApiKeyInfo | null> {
  return findKeyByHash(db, await hashSecret(secret), day);
}

/** `findKeyBySecret` by the secret's stored hash. */
export async function findKeyByHash(db: Db, hash: string, day: string): Promise<ApiKeyInfo | null> {
  const lookup = getOrCreate(lookups, db, () => lookupStatement(db));
  const [row] = await lookup.execute({ hash, day });
  return row ? apiKeyOf(row) : null;
}

/** The stored hash of key `id` (revoked or not: the gate refuses a revoked one), or null. */
export async function keyHashOf(db: Db, id: string): Promise<string | null> {
  const [row] = await db.select({ hash: apiKeys.hash }).from(apiKeys).where(eq(apiKeys.id, id));
  return row?.hash ?? null;
}

/** `last_used_at` is written at most once per this interval per key. */
export const LAST_USED_PRECISION_MS = 60_000;

/**
 * Records that the key was used, unless it was within the last minute: one conditional UPDATE,
 * so concurrent requests (on any instance) write it once and the hot path stays a read.
 */
export async function touchKey(db: Db, key: ApiKeyInfo, at: Date): Promise<void> {
  if (key.lastUsedAt && at.getTime() - key.lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
  const stale = new Date(at.getTime() - LAST_USED_PRECISION_MS);
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.id, key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
}

export const unauthorized = (message: string) =>
  new ApiError("unauthorized", message, { headers: { "www-authenticate": 'Bearer realm="parley"' } });

/**
 * A route's other way to name the request's key, used only when there is no Authorization header:
 * the key's id, or undefined when the request does not use it; throws its own 401 for a bad one.
 * (The events route's `?token=`, conversations/replies.ts.)
 */
export type Credential = (ctx: { request: Request; params: Record<string, string> }) => Promise<string | undefined>;

/**
 * The credential the request presents, as the gate reads it: the stored hash of its key — its
 * Bearer secret's, a visitor token's key (verified here, its claims kept), else the route's other
 * credential's — and whether that is a public key's.
 */
export async function presentedCredential(
  db: Db,
  ctx: Parameters<Credential>[0],
  credential: Credential | undefined,
  now: number,
): Promise<Presented> {
  const header = ctx.request.headers.get("authorization");
  if (!header) {
    const keyId = await credential?.(ctx);
    if (keyId !== undefined) return { hash: (await keyHashOf(db, keyId)) ?? "", publicKey: false };
    if (urlOf(ctx.request).searchParams.has("token"))
      throw unauthorized(
        "A resume token is accepted only on the events route of its own reply; send 'Authorization: Bearer <API key>'.",
      );
    throw unauthorized("Missing Authorization header; send 'Authorization: Bearer <API key>'.");
  }
  const token = /^Bearer +(pvt_\S+) *$/i.exec(header)?.[1];
  if (token) {
    const claims = await verifyVisitorToken(db, token, now);
    if (!claims) throw unauthorized("Invalid visitor token: open a session (POST /v1/widget/sessions) for a new one.");
    return { hash: (await keyHashOf(db, claims.keyId)) ?? "", publicKey: true, claims };
  }
  const secret = bearerSecret(header);
  if (!secret) throw unauthorized("Malformed Authorization header; expected 'Bearer prl_…'.");
  return { hash: await hashSecret(secret), publicKey: secret.startsWith("pk_") };
}

/**
 * Idempotency-Key on POST /chat: per API key, kept 24 h, in the database. The first request
 * with a key wins one `INSERT … ON CONFLICT DO UPDATE … WHERE expired` (an expired record is
 * taken over in the same statement); every other request with that key reads the winner's
 * record: the same body → the same reply (or the same early error); another body → 422.
 */
import { and, eq, sql } from "drizzle-orm";
import type { ErrorPayload } from "../contract/errors.ts";
import type { Db } from "../db/client.ts";
import type { Owner } from "../db/owner.ts";
import { idempotencyKeys, type MessageRow } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import { sha256Hex } from "../primitives.ts";
import type { ReplyWrite } from "../replies/index.ts";
import type { ChatDeps } from "./deps.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** How long a stream retry waits for the first request (same Idempotency-Key) to start its reply. */
const PENDING_WAIT_MS = 5_000;
/** A record this old with neither a reply nor an error belongs to a request that died before starting one. */
export const ABANDONED_MS = 60_000;
/** The header as the OpenAPI document states it. */
export const IDEMPOTENCY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header" as const,
  description: "1–255 printable ASCII characters; a retry with the same key and body gets the same reply (kept 24 h).",
  schema: { type: "string", minLength: 1, maxLength: 255, examples: ["3f9c2a7e-retry-safe"] },
};
const PRINTABLE = /^[\x20-\x7E]{1,255}$/;

/** The Idempotency-Key header's value, checked: 400 when it is empty, too long or not printable ASCII. */
export function idempotencyKeyOf(value: string): string {
  if (!PRINTABLE.test(value)) {
    throw new ApiError(
      "invalid_request",
      "Invalid header 'Idempotency-Key': it must be 1–255 printable ASCII characters.",
      {
        param: "Idempotency-Key",
      },
    );
  }
  return value;
}

/** SHA-256 of what decides the reply: the message, the conversation and the response form. */
export function bodyHash(body: {
  message: string;
  conversation_id?: string | null;
  stream?: boolean;
  knowledge_base_id?: string;
}): Promise<string> {
  const fields = [body.message, body.conversation_id ?? null, body.stream ?? false];
  // Only when given, so the hashes of requests without it stay what they were.
  if (body.knowledge_base_id !== undefined) fields.push(body.knowledge_base_id);
  return sha256Hex(JSON.stringify(fields));
}

/** What the record says about this request. */
export type Claim =
  | { kind: "first" }
  | { kind: "reply"; messageId: string }
  | { kind: "error"; status: number; error: ErrorPayload }
  | { kind: "pending" }
  | { kind: "reused" };

export async function claim(db: Db, keyId: string, idemKey: string, hash: string, now: number): Promise<Claim> {
  const at = new Date(now);
  const won = await db
    .insert(idempotencyKeys)
    .values({ keyId, idemKey, bodyHash: hash, createdAt: at, expiresAt: new Date(now + IDEMPOTENCY_TTL_MS) })
    .onConflictDoUpdate({
      target: [idempotencyKeys.keyId, idempotencyKeys.idemKey],
      set: {
        bodyHash: hash,
        messageId: null,
        errorStatus: null,
        errorBody: null,
        createdAt: at,
        expiresAt: new Date(now + IDEMPOTENCY_TTL_MS),
      },
      // Expired, or abandoned: a first request that neither started a reply nor failed within
      // ABANDONED_MS died on its way (its instance crashed); the next retry takes its place.
      setWhere: sql`${idempotencyKeys.expiresAt} <= ${at.toISOString()}::timestamptz
        or (${idempotencyKeys.messageId} is null and ${idempotencyKeys.errorStatus} is null
            and ${idempotencyKeys.createdAt} <= ${new Date(now - ABANDONED_MS).toISOString()}::timestamptz)`,
    })
    .returning({ keyId: idempotencyKeys.keyId });
  if (won.length) return { kind: "first" };
  return inspect(db, keyId, idemKey, hash);
}

/** What the record of someone else's first request says now. */
export async function inspect(
  db: Db,
  keyId: string,
  idemKey: string,
  hash: string,
): Promise<Exclude<Claim, { kind: "first" }>> {
  const [row] = await db.select().from(idempotencyKeys).where(where(keyId, idemKey));
  if (!row) return { kind: "pending" }; // deleted (a failed first attempt) this instant: retry
  if (row.bodyHash !== hash) return { kind: "reused" };
  if (row.messageId) return { kind: "reply", messageId: row.messageId };
  if (row.errorStatus !== null && row.errorBody !== null)
    return { kind: "error", status: row.errorStatus, error: JSON.parse(row.errorBody) };
  return { kind: "pending" };
}

/** A retry whose first request is still being handled (or, answered as JSON, still generating its reply): retry later. */
export const inProgress = () =>
  new ApiError(
    "idempotency_in_progress",
    "A request with this Idempotency-Key is still being processed; retry later.",
    {
      headers: { "retry-after": "1" },
    },
  );

/**
 * Claims the key for this request (null: it is the first, go on) or answers as the first
 * request did: its reply (a stream retry waits briefly for the first request to start one),
 * its early error, or 422 for another body with the same key.
 */
export async function claimOrReplay(
  deps: ChatDeps,
  owner: Owner,
  { key, hash }: { key: string; hash: string },
  stream: boolean,
): Promise<MessageRow | null> {
  const keyId = owner.keyId;
  let found = await claim(deps.db, keyId, key, hash, deps.now());
  if (found.kind === "first") return null;
  for (let waited = 0; found.kind === "pending" && stream && waited < PENDING_WAIT_MS; waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
    found = await inspect(deps.db, keyId, key, hash);
  }
  if (found.kind === "pending") throw inProgress();
  if (found.kind === "reused") {
    throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used with a different request body.", {
      param: "Idempotency-Key",
    });
  }
  if (found.kind === "error") {
    throw new ApiError(found.error.code, found.error.message, found.error.param ? { param: found.error.param } : {});
  }
  const message = await deps.replies.find(owner, found.messageId);
  if (!message)
    throw new ApiError("not_found", "The reply of this Idempotency-Key's request was deleted with its conversation.");
  return message;
}

const where = (keyId: string, idemKey: string) =>
  and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idemKey, idemKey));

/**
 * Points the record at the reply, inside the statement that creates it (replies/statements.ts):
 * a retry never sees one without the other.
 */
export const linkReply =
  (keyId: string, idemKey: string): ReplyWrite =>
  (reply) =>
    sql`update ${idempotencyKeys} set message_id = (select id from ${reply}) where ${where(keyId, idemKey)}`;

/** The first request ended with a client error before any reply existed (404…): retries get the same. */
export async function recordError(db: Db, keyId: string, idemKey: string, error: ApiError): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ errorStatus: error.status, errorBody: JSON.stringify(error.toPayload()) })
    .where(where(keyId, idemKey));
}

/** The first request failed on the server's side before any reply existed: a retry may run it afresh. */
export async function forget(db: Db, keyId: string, idemKey: string): Promise<void> {
  await db.delete(idempotencyKeys).where(where(keyId, idemKey));
}

/** Deletes records past their 24 h (the periodic sweep). */
export async function purgeExpired(db: Db, now: number): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(sql`${idempotencyKeys.expiresAt} <= ${new Date(now).toISOString()}::timestamptz`);
}

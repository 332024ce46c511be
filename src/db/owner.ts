/**
 * Who owns a conversation: the key, and for a public key's visitor also the visitor. Every read
 * or write of a conversation (and of its messages, replies and ratings) puts this in its WHERE,
 * so a visitor reaches only its own and a key only its own; a key's own requests (no visitor)
 * are never made with a public key (the gate refuses them), so they need no visitor condition.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { conversations } from "./schema.ts";

export interface Owner {
  keyId: string;
  /** A public key's visitor; null or absent for a chat or admin key. */
  visitorId?: string | null;
}

/** The request's owner: its key, and the visitor its token names (auth/ sets `visitor`). */
export const ownerOf = (key: { id: string; visitor?: { id: string } }): Owner => ({
  keyId: key.id,
  visitorId: key.visitor?.id ?? null,
});

/** `conversations` rows `owner` owns (Drizzle). */
export const ownedBy = (owner: Owner): SQL =>
  and(
    eq(conversations.keyId, owner.keyId),
    owner.visitorId ? eq(conversations.visitorId, owner.visitorId) : undefined,
  )!;

/** The same condition on a conversation aliased `alias` in raw SQL. */
export const ownedByRaw = (alias: string, owner: Owner): SQL =>
  owner.visitorId
    ? sql`${sql.raw(alias)}.key_id = ${owner.keyId} and ${sql.raw(alias)}.visitor_id = ${owner.visitorId}`
    : sql`${sql.raw(alias)}.key_id = ${owner.keyId}`;

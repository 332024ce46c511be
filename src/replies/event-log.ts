/**
 * A reply's event log in memory: the events so far and the listeners following them. `Run` (the
 * reply generated here) and `Tail` (a reply read from the database) both keep one, so replay and
 * fan-out are written once. Each listener has a cursor: it gets every event after it, once.
 * The terminal event always reaches a listener, whatever its cursor: after a crash a live client
 * may have seen ids that were never stored, and the sweep's terminal event then carries a
 * smaller id; a client must never wait past the end.
 *
 * Terminal events: a reply ends with exactly one, the last stored and streamed: `end`
 * (completed or stopped, with usage) or `error`, built from an `ApiError` so its body is the one
 * errors have everywhere; the named constructors are the ways a reply fails outside its agent.
 *
 * And the `start` event's resume token (`resume_token`): what a browser's EventSource, which
 * cannot send an Authorization header, passes as `?token=` on that reply's events route. It is
 * `v1.<expiry, Unix seconds>.<tag>`, the tag a 16-byte HMAC-SHA-256 over the conversation id, the
 * reply id and the expiry, keyed by a secret every instance shares (in the database, under its
 * own name). It names no key and carries no secret: it is worth one reply's events for an hour,
 * on any instance, and the route admits it as the reply's owner key (conversations/replies.ts).
 */
import type { Certainty } from "../contract/analytics.ts";
import type { ReplyStatus, StreamEvent, Usage } from "../contract/events.ts";
import type { Db } from "../db/client.ts";
import { sharedHmacKey } from "../db/rows.ts";
import { ApiError } from "../http/errors.ts";
import { fromBase64url, toBase64url } from "../primitives.ts";

/** An event with its sequence number within the reply (the SSE `id:`; `start` is 1). */
export interface Sequenced {
  seq: number;
  event: StreamEvent;
  /** With an `error` event of a run here: the failure itself (its headers and cause), which a fold throws. */
  failure?: ApiError;
}

export const isTerminal = (e: StreamEvent) => e.type === "end" || e.type === "error";

export class EventLog {
  readonly events: Sequenced[] = [];
  private readonly listeners = new Map<(e: Sequenced) => void, number>();

  /** The last event's sequence number (0 before any). */
  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /** Whether the terminal event is in the log. */
  get ended(): boolean {
    const last = this.events.at(-1);
    return last !== undefined && isTerminal(last.event);
  }

  get followers(): number {
    return this.listeners.size;
  }

  /** Replays the events after `after` (and the terminal one), then forwards new ones until unsubscribed. */
  subscribe(listener: (e: Sequenced) => void, after = 0): () => void {
    let cursor = after;
    for (const e of this.events) {
      if (e.seq > cursor || isTerminal(e.event)) {
        listener(e);
        cursor = Math.max(cursor, e.seq);
      }
    }
    if (!this.ended) this.listeners.set(listener, cursor);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Appends `e` (ignored unless its seq is past the last one) and hands it to every listener due. */
  push(e: Sequenced): boolean {
    if (this.ended || e.seq <= this.lastSeq) return false;
    this.events.push(e);
    const terminal = isTerminal(e.event);
    for (const [listener, cursor] of this.listeners) {
      if (e.seq <= cursor && !terminal) continue;
      this.listeners.set(listener, e.seq);
      try {
        listener(e);
      } catch {
        // A listener's failure is its connection's problem; the others go on.
        this.listeners.delete(listener);
      }
    }
    if (terminal) this.listeners.clear();
    return true;
  }
}

/** The conversation (and with it the reply) was deleted while the reply ran. */
export const conversationDeleted = (detail = "The conversation was deleted.") => new ApiError("not_found", detail);

/** The reply left `in_progress` under its run: deleted (`status` null), or swept after this instance stalled. */
export const replyLost = (status: string | null | undefined) =>
  status === null
    ? conversationDeleted("The conversation was deleted before the reply could be stored.")
    : new ApiError("generation_failed", "The reply's lease expired (this instance stalled); it was ended as failed.");

/** A swept reply: the instance generating it stopped before finishing it. */
export const orphaned = () =>
  new ApiError(
    "generation_failed",
    "The instance generating this reply stopped before finishing it; the reply is incomplete.",
  );

/** Shutdown cut the reply short. */
export const shuttingDown = () =>
  new ApiError("service_unavailable", "The server is shutting down; the reply was cut short.");

/** The `error` event of a failure (`param` is not part of an event's error). */
export function errorEvent(error: ApiError): StreamEvent {
  const { param: _param, ...payload } = error.toPayload();
  return { type: "error", error: payload };
}

export const endEvent = (
  messageId: string,
  status: ReplyStatus,
  usage: Usage | null,
  certainty: Certainty,
): StreamEvent => ({
  type: "end",
  message_id: messageId,
  status,
  usage,
  certainty,
});

/** The exact JSON the sweep stores as a swept reply's last event. */
export const ORPHANED_EVENT = JSON.stringify(errorEvent(orphaned()));

/** How long a reply's resume token is accepted, from the reply's start. */
export const RESUME_TOKEN_TTL_MS = 3_600_000;

const TAG_BYTES = 16;
const FORMAT = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/;

/** The shared signing key (db/rows.ts). */
const signingKey = (db: Db) => sharedHmacKey(db, "resume_token_hmac");

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

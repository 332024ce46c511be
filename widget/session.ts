/**
 * The visitor's session: a short-lived token from POST /v1/widget/sessions, kept in localStorage
 * per public key with the visitor's conversation, refreshed a minute before it expires (an
 * expired token still refreshes for 7 days and keeps the visitor id, so the conversation stays
 * theirs). A key that requires proof of work gets an ALTCHA challenge, solved with altcha-lib's
 * solver (the protocol's authors' own: the same package checks it on the server, and it uses
 * only crypto.subtle). Requests go through the typed client's transport, so errors arrive as the
 * same ParleyError (code, status, Retry-After) as the chat's.
 */
import { solveChallenge } from "altcha-lib/v1";
import { ParleyError } from "../src/client/errors.ts";
import { transport } from "../src/client/transport.ts";
import { readJson } from "../src/client/wire.ts";
import type { WidgetChallenge, WidgetSession } from "../src/contract/widget.ts";

/** What is stored per public key. */
export interface Stored extends WidgetSession {
  conversation_id?: string | null;
}

export const REFRESH_MARGIN_MS = 60_000;
/** How long after expiry a token may still be exchanged for a new one (the server's rule). */
export const REFRESH_WINDOW_MS = 7 * 24 * 3600_000;

export const storageKey = (publicKey: string) => `parley-widget:${publicKey}`;

/** localStorage, or null where reading it throws (blocked cookies, sandboxed frames). */
export function defaultStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export function readStored(storage: Storage | null, key: string): Stored | null {
  try {
    const v = JSON.parse(storage?.getItem(key) ?? "null");
    return typeof v?.token === "string" && typeof v.visitor_id === "string" && typeof v.expires_at === "string"
      ? v
      : null;
  } catch {
    return null; // unreadable or unparsable: start over
  }
}

export function writeStored(storage: Storage | null, key: string, value: Stored | null): void {
  try {
    if (value) storage?.setItem(key, JSON.stringify(value));
    else storage?.removeItem(key);
  } catch {
    // Full or blocked: the session lives in memory for this page only.
  }
}

/** `fresh`: use the token; `refresh`: exchange it (keeps the visitor); `new`: ask with the public key. */
export function sessionState(s: Stored | null, now: number): "fresh" | "refresh" | "new" {
  const expires = s ? Date.parse(s.expires_at) : Number.NaN;
  if (!s || Number.isNaN(expires)) return "new";
  if (expires - now > REFRESH_MARGIN_MS) return "fresh";
  return now - expires < REFRESH_WINDOW_MS ? "refresh" : "new";
}

/** The proof POST /v1/widget/sessions takes: the solved challenge as base64 JSON. */
export const encodeProof = (c: WidgetChallenge, number: number) =>
  btoa(
    JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number, salt: c.salt, signature: c.signature }),
  );

export interface SessionOptions {
  baseUrl: string;
  publicKey: string;
  storage?: Storage | null;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  now?: () => number;
  /** The signed-in user's token (an HS256 JWT the site's server signs), for keys that take user tokens. */
  userToken?: () => string | null;
  /** Finds the challenge's number (default: altcha-lib's solver on this thread). */
  solve?: (c: WidgetChallenge) => Promise<number | null>;
}

const solveHere = async (c: WidgetChallenge) =>
  (await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise)?.number ?? null;

export type Session = ReturnType<typeof createSession>;

export function createSession(o: SessionOptions) {
  const key = storageKey(o.publicKey);
  const storage = o.storage === undefined ? defaultStorage() : o.storage;
  const now = o.now ?? Date.now;
  let stored = readStored(storage, key);
  let pending: Promise<Stored> | null = null;

  const post = async <T extends object>(bearer: string, path: string, body: object): Promise<T> => {
    const send = transport({ baseUrl: o.baseUrl, apiKey: bearer, fetch: o.fetch, maxRetries: 1, maxRetryDelay: 3000 });
    return (await readJson(await send("POST", path, body), (v) => Object.keys(v).length > 0)) as T;
  };

  const save = (s: WidgetSession): Stored => {
    // Another visitor id (the old token was refused): the old conversation is not theirs.
    const conversation = stored?.visitor_id === s.visitor_id ? stored.conversation_id : null;
    stored = { token: s.token, visitor_id: s.visitor_id, expires_at: s.expires_at, conversation_id: conversation };
    writeStored(storage, key, stored);
    return stored;
  };

  async function open(): Promise<Stored> {
    // A key that takes user tokens wants the current one with every opening and renewal.
    const user = o.userToken?.();
    const body = user ? { user_token: user } : {};
    if (stored && sessionState(stored, now()) === "refresh") {
      try {
        return save(await post<WidgetSession>(stored.token, "/widget/sessions", body));
      } catch (error) {
        // Refused (too old, key revoked): a new visitor. Anything else (offline, 429) is reported.
        if (!(error instanceof ParleyError && (error.status === 401 || error.status === 403))) throw error;
      }
    }
    try {
      return save(await post<WidgetSession>(o.publicKey, "/widget/sessions", body));
    } catch (error) {
      if (!(error instanceof ParleyError && error.code === "proof_of_work_required")) throw error;
      const challenge = await post<WidgetChallenge>(o.publicKey, "/widget/challenges", {});
      const number = await (o.solve ?? solveHere)(challenge);
      if (number === null) throw new ParleyError(0, "invalid_response", "The proof of work could not be solved.");
      return save(await post(o.publicKey, "/widget/sessions", { proof: encodeProof(challenge, number) }));
    }
  }

  return {
    /** A token valid for at least another minute; `renew`: a new one whatever the old one's expiry (after 401 token_expired). */
    async token(renew = false): Promise<string> {
      if (!renew && stored && sessionState(stored, now()) === "fresh") return stored.token;
      if (renew && stored) stored = { ...stored, expires_at: new Date(now()).toISOString() }; // expired now: refreshed, same visitor
      // One exchange at a time: concurrent callers share it.
      pending ??= open().finally(() => (pending = null));
      return (await pending).token;
    },
    /** Whether a session was ever opened here (then the visitor may have a conversation to show). */
    get started(): boolean {
      return stored !== null;
    },
    get conversationId(): string | null {
      return stored?.conversation_id ?? null;
    },
    set conversationId(id: string | null) {
      if (!stored) return;
      stored = { ...stored, conversation_id: id };
      writeStored(storage, key, stored);
    },
  };
}

/**
 * The widget's calls to Parley with the visitor's token. Streaming, resuming a broken stream
 * (Last-Event-ID), retries and error parsing are the typed client's own (src/client): its
 * transport and `followReply` are used directly rather than `createClient`, which would bundle
 * the admin API too. A 401 `token_expired` renews the session and tries once more: a reply
 * already started resumes where it broke instead of being asked again.
 */
import { conversations } from "../src/client/conversations.ts";
import { ParleyError } from "../src/client/errors.ts";
import { followReply, type ReplyPosition, replyPath } from "../src/client/follow.ts";
import { type Call, transport } from "../src/client/transport.ts";
import type { ChatEvent, RequestOptions } from "../src/client/types.ts";
import { createSession, type SessionOptions } from "./session.ts";

export interface ApiOptions extends SessionOptions {
  knowledgeBase?: string;
}

const expired = (e: unknown) => e instanceof ParleyError && e.code === "token_expired";

/** A random Idempotency-Key (getRandomValues: randomUUID needs a secure context). */
function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `wgt_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export type Api = ReturnType<typeof createApi>;

export function createApi(o: ApiOptions) {
  const session = createSession(o);
  // The transport reads `apiKey` on every request: set to the current token before each call.
  const auth = { baseUrl: o.baseUrl, apiKey: "", fetch: o.fetch, maxRetries: 1, maxRetryDelay: 3000 };
  const send = transport(auth);

  /** Runs `call` with a fresh token, renewing it once on `token_expired`. */
  async function authed<T>(call: () => Promise<T>): Promise<T> {
    auth.apiKey = await session.token();
    try {
      return await call();
    } catch (error) {
      if (!expired(error)) throw error;
      auth.apiKey = await session.token(true);
      return call();
    }
  }

  const done = async (call: Promise<{ res: Response; end(): void }>) => {
    const c = await call;
    c.end();
    await c.res.body?.cancel().catch(() => {});
  };

  /**
   * A reply's events, from its POST or from `at`; after `token_expired` (a token that expired
   * while the tab slept) the session is renewed once and the reply followed on from where it was.
   */
  async function* follow(
    at: ReplyPosition | undefined,
    post: ((opts: RequestOptions) => Promise<Call>) | undefined,
    signal?: AbortSignal,
  ): AsyncGenerator<ChatEvent> {
    for (let renewed = false; ; renewed = true) {
      auth.apiKey = await session.token(renewed);
      const opts = { signal };
      const events = at
        ? followReply(send, { at: { ...at }, maxResumes: 3, opts })
        : followReply(send, { open: () => post!(opts), reopen: true, maxResumes: 3, opts });
      try {
        for await (const event of events) {
          if (event.type === "start" && event.messageId) {
            at = { conversationId: event.conversationId, messageId: event.messageId, after: event.id ?? 0 };
            session.conversationId = event.conversationId;
          } else if (at && event.id !== undefined) at.after = Math.max(at.after, event.id);
          yield event;
        }
        return;
      } catch (error) {
        if (renewed || !expired(error)) throw error;
      }
    }
  }

  return {
    session,

    /** Asks `message` in the visitor's conversation (a new one when none) and yields the reply's events. */
    ask(message: string, signal?: AbortSignal): AsyncGenerator<ChatEvent> {
      const conversation = session.conversationId;
      const body = {
        message,
        stream: true,
        // A conversation keeps its knowledge base: it is named only for a new one.
        ...(conversation
          ? { conversation_id: conversation }
          : o.knowledgeBase
            ? { knowledge_base_id: o.knowledgeBase }
            : {}),
      };
      // Keyed, so a POST whose answer was lost is sent again without asking twice.
      const headers = { "idempotency-key": idempotencyKey() };
      return follow(undefined, (opts) => send("POST", "/chat", body, opts, { headers }), signal);
    },

    /** The events of a reply from its start (one still running when the page was reloaded, say). */
    resume: (conversationId: string, messageId: string, signal?: AbortSignal) =>
      follow({ conversationId, messageId, after: 0 }, undefined, signal),

    /** Stops a running reply; its stream then ends with `end` (status `stopped`). */
    stop: (conversationId: string, messageId: string) =>
      authed(() => done(send("POST", `${replyPath(conversationId, messageId)}/stop`))),

    /** Rates a reply, or (null) withdraws the rating. */
    feedback: (conversationId: string, messageId: string, rating: "up" | "down" | null) =>
      authed(() =>
        done(
          rating
            ? send("PUT", `${replyPath(conversationId, messageId)}/feedback`, { rating })
            : send("DELETE", `${replyPath(conversationId, messageId)}/feedback`),
        ),
      ),

    /** The visitor's current conversation (null: none, or no longer there). */
    async history() {
      const id = session.conversationId;
      if (!id) return null;
      try {
        return await authed(() => conversations(send).get(id));
      } catch (error) {
        if (error instanceof ParleyError && error.status === 404) {
          session.conversationId = null;
          return null;
        }
        throw error;
      }
    },
  };
}

/** Seconds as a person reads them: "45 s", "3 min", "2 h". */
export function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.ceil(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** What the visitor reads for a failure: short, without codes, saying what to do. */
export function describeError(error: unknown): string {
  if (!(error instanceof ParleyError)) return "Something went wrong. Please try again.";
  const wait = error.retryAfter !== undefined ? ` in ${duration(error.retryAfter)}` : " later";
  switch (error.code) {
    case "rate_limit_exceeded":
      return `Too many questions right now; try again${wait}.`;
    case "daily_quota_exceeded":
    case "token_quota_exceeded":
      return `This assistant has reached its limit for today; try again${wait}.`;
    case "connection_error":
    case "timeout":
    case "stream_interrupted":
      return "The assistant could not be reached. Check your connection and try again.";
  }
  if (error.status === 403) return "This site is not allowed to use this assistant.";
  // The server's words for a request it refused (a question too long, say) are meant to be read.
  if (error.status === 400) return error.message;
  if (error.status === 401) return "The assistant could not start a session. Reload the page to try again.";
  if (error.status === 429) return `Too many questions right now; try again${wait}.`;
  return "The assistant could not answer. Please try again.";
}

/**
 * The typed Parley client (package `parley-client`): Web-standard fetch and streams only, so it
 * runs in Node 18+, Bun, Deno and browsers. Every failure throws `ParleyError` (see its codes),
 * except the caller's own abort. Connection errors, 408, 409, 429 and 5xx are retried
 * (`maxRetries`, default 2) after Retry-After or a capped exponential backoff with jitter — a
 * chat without `idempotencyKey` only on 429, since otherwise it may have reached the server;
 * every call has a `timeout` and takes an AbortSignal. A stream that breaks after `start` is
 * resumed through `Last-Event-ID`. Results carry their response (`reply.response.requestId`,
 * `.rateLimit`, `.headers`; see response.ts).
 *
 *   const parley = createClient({ baseUrl: "http://localhost:3000", apiKey });
 *   const reply = await parley.chat({ message: "Hi" });
 *   for await (const e of parley.chatStream({ message: "Hi" })) if (e.type === "token") write(e.content);
 *   for await (const c of parley.conversations.list()) console.log(c.id);   // every page
 *   for await (const kb of parley.admin.knowledgeBases.list()) console.log(kb.name);  // admin key
 */
import { admin } from "./admin.ts";
import { conversations } from "./conversations.ts";
import { ParleyError } from "./errors.ts";
import { followReply, replyPath } from "./follow.ts";
import { type WithResponse, withResponse } from "./response.ts";
import { type Call, DEFAULTS, sleep, type TransportOptions, transport } from "./transport.ts";
import type { ChatEvent, ChatInput, ChatReply, ReplyRef, StoppedReply } from "./types.ts";
import { readJson, toMessage, usage } from "./wire.ts";

export { type ClientErrorCode, ParleyError, type ParleyErrorCode, type ServerErrorCode } from "./errors.ts";
export type { RateLimitState, ResponseInfo, WithResponse } from "./response.ts";
export type * from "./types.ts";

/** How to reach a Parley server, and the defaults of every call. */
export interface ClientOptions extends TransportOptions {
  /**
   * Failed reconnections in a row (each with its own `maxRetries`) before a broken
   * `chatStream`/`resume` gives up with `stream_interrupted`. Default 3.
   */
  maxResumes?: number;
}

export function createClient(options: ClientOptions) {
  const send = transport(options);
  const maxResumes = options.maxResumes ?? 3;
  const retryBaseDelay = options.retryBaseDelay ?? DEFAULTS.retryBaseDelay;

  /** POST /v1/chat: a keyed request may be sent again after a connection error, an unkeyed one may not. */
  const postChat = (input: ChatInput, stream: boolean): Promise<Call> => {
    const body = {
      message: input.message,
      ...(input.conversationId ? { conversation_id: input.conversationId } : {}),
      stream,
    };
    const key = input.idempotencyKey;
    return send("POST", "/chat", body, input, {
      headers: key ? { "idempotency-key": key } : {},
      idempotent: key !== undefined,
    });
  };

  return {
    /**
     * Sends a message and waits for the whole reply. Without `idempotencyKey` a dropped
     * connection is not retried (the server may have the message already); with it, it is, and
     * a retry that finds the first request still running (409 `idempotency_in_progress`) waits
     * its Retry-After and asks again until the reply has ended: never a second reply.
     */
    async chat(input: ChatInput): Promise<WithResponse<ChatReply>> {
      let call: Call;
      for (;;) {
        try {
          call = await postChat(input, false);
          break;
        } catch (error) {
          const inProgress = error instanceof ParleyError && error.code === "idempotency_in_progress";
          if (!inProgress || input.idempotencyKey === undefined || input.signal?.aborted) throw error;
          // The server's lease ends a reply whose instance died: this wait ends too.
          await sleep(1_000 * (error.retryAfter ?? 1), input.signal);
        }
      }
      const r = await readJson(call, (v) => typeof v.id === "string" && typeof v.content === "string");
      const reply: ChatReply = {
        id: r.id as string,
        conversationId: r.conversation_id as string,
        content: r.content as string,
        sources: Array.isArray(r.sources) ? (r.sources as string[]) : [],
        status: r.status === "stopped" || r.status === "length" ? r.status : "completed",
        createdAt: r.created_at as string,
        usage: usage(r.usage),
        certainty:
          r.certainty === "answered" || r.certainty === "uncertain" || r.certainty === "no_sources"
            ? r.certainty
            : null,
      };
      return withResponse(reply, call.res);
    },

    /**
     * Sends a message and yields the reply's events as they arrive. If the stream breaks after
     * `start`, it is resumed from the last event received (`Last-Event-ID` on the reply's events
     * endpoint, any instance), up to `maxResumes` failed reconnections in a row; the caller sees
     * every event once. With `idempotencyKey`, a POST that fails on the way (no answer, a break
     * before `start`, 409 in progress) is sent again too. Aborting `signal` ends the iteration
     * at once, whenever it happens (the server still completes and stores the reply). A stream
     * that ends without `end`/`error` and cannot be resumed throws `stream_interrupted`; an
     * event that is not JSON, `invalid_response`; `timeout` ms without a byte, `timeout`.
     */
    async *chatStream(input: ChatInput): AsyncGenerator<ChatEvent> {
      const reopen = input.idempotencyKey !== undefined;
      yield* followReply(send, { open: () => postChat(input, true), reopen, maxResumes, retryBaseDelay, opts: input });
    },

    /**
     * The events of a reply after event `after` (0 or omitted: from `start`), then live ones
     * until it ends; a finished reply's at once. Resumes after breaks like `chatStream`.
     */
    async *resume(ref: ReplyRef & { after?: number }): AsyncGenerator<ChatEvent> {
      const { conversationId, messageId, after = 0, ...opts } = ref;
      yield* followReply(send, { at: { conversationId, messageId, after }, maxResumes, retryBaseDelay, opts });
    },

    /**
     * Stops a running reply (on whichever instance generates it) and answers it as stored once
     * ended (`status: "stopped"`; after 5 s, as it is). A reply that already ended is answered as it is.
     */
    async stop(ref: ReplyRef): Promise<WithResponse<StoppedReply>> {
      const { conversationId, messageId, ...opts } = ref;
      // Stopping is idempotent (a reply already ended is answered as it is): safe to repeat.
      const call = await send("POST", `${replyPath(conversationId, messageId)}/stop`, undefined, opts);
      const m = await readJson(call, (v) => typeof v.id === "string" && typeof v.status === "string");
      return withResponse({ ...toMessage(m), conversationId: m.conversation_id as string }, call.res);
    },

    conversations: conversations(send),

    /** Knowledge bases, documents, search and keys: needs an admin key (search: any key that may use the knowledge base). */
    admin: admin(send),
  };
}

/** The client `createClient` returns. */
export type ParleyClient = ReturnType<typeof createClient>;

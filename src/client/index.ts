/**
 * The typed Parley client (`parley/client`): Web-standard fetch and streams only, so it runs in
 * Bun, Deno, Node and browsers. Every failure throws `ParleyError` (see its codes), except the
 * caller's own abort.
 *
 *   const parley = createClient({ baseUrl: "http://localhost:3000", apiKey });
 *   const reply = await parley.chat({ message: "Hi" });
 *   for await (const e of parley.chatStream({ message: "Hi" })) if (e.type === "token") write(e.content);
 *   for await (const c of parley.conversations.list()) console.log(c.id);   // every page
 */
import { ParleyError } from "./errors.ts";
import { followReply, type ReplyPosition } from "./stream.ts";
import type {
  ChatEvent,
  ChatInput,
  ChatReply,
  Conversation,
  ConversationPage,
  ConversationSummary,
  ReplyRef,
  StoppedReply,
} from "./types.ts";
import { connectionError, isWire, readJson, sleep, toMessage, type Wire } from "./wire.ts";

export { ParleyError } from "./errors.ts";
export type * from "./types.ts";

/** How to reach a Parley server. */
export interface ClientOptions {
  /** Up to and excluding `/v1`, e.g. `https://chat.example.com` or `http://host/prefix`. */
  baseUrl: string;
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * How many times a broken stream is resumed (through Last-Event-ID, on the events endpoint)
   * before `chatStream`/`resume` give up with `stream_interrupted`. Default 3.
   */
  maxResumes?: number;
}

const summary = (c: Wire): ConversationSummary => ({
  id: c.id as string,
  createdAt: c.created_at as string,
  updatedAt: c.updated_at as string,
  title: c.title as string,
});

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;

  async function request(method: string, path: string, body?: unknown, signal?: AbortSignal, extra: Record<string, string> = {}): Promise<Response> {
    const headers: Record<string, string> = { ...extra, authorization: `Bearer ${options.apiKey}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await doFetch(`${base}/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw connectionError(error, signal);
    }
    if (!res.ok) throw await ParleyError.fromResponse(res);
    return res;
  }

  const chatBody = (input: ChatInput, stream: boolean) => ({
    message: input.message,
    ...(input.conversationId ? { conversation_id: input.conversationId } : {}),
    stream,
  });

  async function page(query: { limit?: number; cursor?: string } = {}): Promise<ConversationPage> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    if (query.cursor) params.set("cursor", query.cursor);
    // Not `params.size`: older browsers and runtimes lack it.
    const qs = params.toString() ? `?${params}` : "";
    const json = await readJson<{ data: Wire[]; pagination: { has_more: boolean; next_cursor: string | null } }>(
      await request("GET", `/conversations${qs}`),
      (v) => Array.isArray(v.data) && v.data.every(isWire) && isWire(v.pagination),
    );
    return { data: json.data.map(summary), hasMore: json.pagination.has_more, nextCursor: json.pagination.next_cursor };
  }

  const replyPath = (conversationId: string, messageId: string) =>
    `/conversations/${encodeURIComponent(conversationId)}/messages/${encodeURIComponent(messageId)}`;

  const follow = (open: (() => Promise<Response>) | null, signal: AbortSignal | undefined, at: ReplyPosition | null = null, reopen = false) =>
    followReply({ request, replyPath, maxResumes: options.maxResumes ?? 3 }, open, signal, at, reopen);

  return {
    /**
     * Sends a message and waits for the whole reply. With `idempotencyKey`, a request whose
     * answer is lost (no answer, 5xx) is sent again, up to `maxResumes` times, and a retry that
     * finds the first request still running (409 `idempotency_in_progress`) waits `Retry-After`
     * and asks again until the reply has ended: the server never starts a second reply.
     */
    async chat(input: ChatInput): Promise<ChatReply> {
      const headers: Record<string, string> = input.idempotencyKey ? { "idempotency-key": input.idempotencyKey } : {};
      let failures = 0;
      let res: Response;
      for (;;) {
        try {
          res = await request("POST", "/chat", chatBody(input, false), input.signal, headers);
          break;
        } catch (error) {
          if (!input.idempotencyKey || !(error instanceof ParleyError) || input.signal?.aborted) throw error;
          if (error.code === "idempotency_in_progress") {
            await sleep(1_000 * (error.retryAfter ?? 1), input.signal);
            continue;
          }
          if (!(error.status === 0 || error.status >= 500) || error.code === "generation_failed" || ++failures > (options.maxResumes ?? 3)) throw error;
          await sleep(250 * failures, input.signal);
        }
      }
      const r = await readJson(res, (v) => typeof v.id === "string" && typeof v.content === "string", input.signal);
      return {
        id: r.id as string,
        conversationId: r.conversation_id as string,
        content: r.content as string,
        status: r.status === "stopped" ? "stopped" : "completed",
        createdAt: r.created_at as string,
      };
    },

    /**
     * Sends a message and yields the reply's events as they arrive. If the stream breaks after
     * `start`, it is resumed transparently from the last event received (`Last-Event-ID` on the
     * reply's events endpoint, any instance), up to `maxResumes` times in a row. Aborting
     * `signal` ends the iteration, whenever it happens (the server still completes and stores
     * the reply). With `idempotencyKey`, a POST that fails on the way (no answer, 5xx, a break
     * before `start`) is sent again too: the key makes the server answer with the same reply. A stream that closes or breaks without `end` or `error`, and cannot be
     * resumed, throws `ParleyError` with code `stream_interrupted`; an event that is not JSON,
     * `invalid_response`.
     */
    async *chatStream(input: ChatInput): AsyncGenerator<ChatEvent> {
      const headers: Record<string, string> = input.idempotencyKey ? { "idempotency-key": input.idempotencyKey } : {};
      const open = () => request("POST", "/chat", chatBody(input, true), input.signal, headers);
      yield* follow(open, input.signal, null, Boolean(input.idempotencyKey));
    },

    /** The events of a reply after event `after` (0 or omitted: from `start`), then live until it ends; resumes like `chatStream`. */
    async *resume(ref: ReplyRef & { after?: number }): AsyncGenerator<ChatEvent> {
      yield* follow(null, ref.signal, { conversationId: ref.conversationId, messageId: ref.messageId, after: ref.after ?? 0 });
    },

    /** Stops a running reply (on whichever instance generates it); answers the reply as stored. A finished reply is answered as it is. */
    async stop(ref: ReplyRef): Promise<StoppedReply> {
      const res = await request("POST", `${replyPath(ref.conversationId, ref.messageId)}/stop`, undefined, ref.signal);
      const m = await readJson(res, (v) => typeof v.id === "string" && typeof v.status === "string", ref.signal);
      return { ...toMessage(m), conversationId: m.conversation_id as string };
    },

    conversations: {
      /** One page, newest first; pass `nextCursor` back as `cursor` for the next. */
      page,

      /** Every conversation, newest first, fetching page after page as the loop asks. */
      async *list(query: { limit?: number } = {}): AsyncGenerator<ConversationSummary> {
        let cursor: string | undefined;
        do {
          const p = await page({ limit: query.limit, cursor });
          yield* p.data;
          cursor = p.hasMore ? (p.nextCursor ?? undefined) : undefined;
        } while (cursor);
      },

      async get(id: string): Promise<Conversation> {
        const c = await readJson<Wire & { messages: Wire[] }>(
          await request("GET", `/conversations/${encodeURIComponent(id)}`),
          (v) => Array.isArray(v.messages) && v.messages.every(isWire),
        );
        return {
          ...summary(c),
          messages: c.messages.map(toMessage),
        };
      },

      async delete(id: string): Promise<void> {
        await request("DELETE", `/conversations/${encodeURIComponent(id)}`);
      },
    },
  };
}

/** The client `createClient` returns. */
export type ParleyClient = ReturnType<typeof createClient>;

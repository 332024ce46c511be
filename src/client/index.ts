/**
 * The typed Parley client (package `parley-client`): Web-standard fetch and streams only, so it
 * runs in Node 18+, Bun, Deno and browsers. Every failure throws `ParleyError` (see its codes),
 * except the caller's own abort. Connection errors, 429 and 503 are retried (`maxRetries`,
 * default 2) after Retry-After or a capped exponential backoff with jitter; every call has a
 * `timeout` and takes an AbortSignal.
 *
 *   const parley = createClient({ baseUrl: "http://localhost:3000", apiKey });
 *   const reply = await parley.chat({ message: "Hi" });
 *   for await (const e of parley.chatStream({ message: "Hi" })) if (e.type === "token") write(e.content);
 *   for await (const c of parley.conversations.list()) console.log(c.id);   // every page
 */
import { readEvents, invalid, usage } from "./stream.ts";
import { type Call, transport, type TransportOptions } from "./transport.ts";
import type { ChatEvent, ChatInput, ChatReply, Conversation, ConversationPage, ConversationSummary, RequestOptions } from "./types.ts";

export { ParleyError, type ClientErrorCode, type ParleyErrorCode, type ServerErrorCode } from "./errors.ts";
export type * from "./types.ts";

/** How to reach a Parley server, and the defaults of every call. */
export interface ClientOptions extends TransportOptions {
  /** Up to and excluding `/v1`, e.g. `https://chat.example.com` or `http://host/prefix`. */
  baseUrl: string;
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Milliseconds per attempt for a complete answer; for a stream, the longest silence. Default 120000. */
  timeout?: number;
  /** Retries on connection errors, 429 and 503; default 2. */
  maxRetries?: number;
  /** A Retry-After longer than this (ms, default 60000) is not waited for: the call fails with it. */
  maxRetryDelay?: number;
}

type Wire = Record<string, unknown>;
const isWire = (v: unknown): v is Wire => typeof v === "object" && v !== null && !Array.isArray(v);

/** A 2xx body as a JSON object, checked by `ok` (else `invalid_response`), read within the call's timeout. */
async function readJson<T extends Wire>(call: Call, ok: (v: Wire) => boolean): Promise<T> {
  const { res } = call;
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    throw call.failure(error);
  } finally {
    call.end();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type");
    throw invalid(res, `expected JSON, got ${type ? `'${type}'` : "a body"} starting '${text.slice(0, 60)}'`);
  }
  if (!isWire(value) || !ok(value)) throw invalid(res, `JSON of an unexpected shape starting '${text.slice(0, 60)}'`);
  return value as T;
}

const summary = (c: Wire): ConversationSummary => ({
  id: c.id as string,
  createdAt: c.created_at as string,
  updatedAt: c.updated_at as string,
  title: c.title as string,
});

export function createClient(options: ClientOptions) {
  const send = transport(options);

  const chatBody = (input: ChatInput, stream: boolean) => ({
    message: input.message,
    ...(input.conversationId ? { conversation_id: input.conversationId } : {}),
    stream,
  });

  async function page(query: { limit?: number; cursor?: string } = {}, opts?: RequestOptions): Promise<ConversationPage> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    if (query.cursor) params.set("cursor", query.cursor);
    // Not `params.size`: older browsers and runtimes lack it.
    const qs = params.toString() ? `?${params}` : "";
    const json = await readJson<{ data: Wire[]; pagination: { has_more: boolean; next_cursor: string | null } }>(
      await send("GET", `/conversations${qs}`, undefined, opts),
      (v) => Array.isArray(v.data) && v.data.every(isWire) && isWire(v.pagination),
    );
    return { data: json.data.map(summary), hasMore: json.pagination.has_more, nextCursor: json.pagination.next_cursor };
  }

  return {
    /**
     * Sends a message and waits for the whole reply. A retry after a dropped connection may
     * repeat a message the server had already received; pass `maxRetries: 0` to rule that out.
     */
    async chat(input: ChatInput): Promise<ChatReply> {
      const call = await send("POST", "/chat", chatBody(input, false), input);
      const r = await readJson(call, (v) => typeof v.id === "string" && typeof v.content === "string");
      return { id: r.id as string, conversationId: r.conversation_id as string, content: r.content as string, createdAt: r.created_at as string, usage: usage(r.usage) };
    },

    /**
     * Sends a message and yields the reply's events as they arrive. Aborting `signal` ends the
     * iteration at once, whenever it happens (the server still completes and stores the reply).
     * Retries happen only before the first event. A stream that closes or breaks without `end`
     * or `error` throws `ParleyError` with code `stream_interrupted`; an event that is not JSON,
     * `invalid_response`; `timeout` milliseconds without a byte, `timeout`.
     */
    async *chatStream(input: ChatInput): AsyncGenerator<ChatEvent> {
      let call: Call;
      try {
        call = await send("POST", "/chat", chatBody(input, true), input);
      } catch (error) {
        if (input.signal?.aborted) return;
        throw error;
      }
      yield* readEvents(call, input.signal);
    },

    conversations: {
      /** One page, newest first; pass `nextCursor` back as `cursor` for the next. */
      page,

      /** Every conversation, newest first, fetching page after page as the loop asks. */
      async *list(query: { limit?: number } = {}, opts?: RequestOptions): AsyncGenerator<ConversationSummary> {
        let cursor: string | undefined;
        do {
          const p = await page({ limit: query.limit, cursor }, opts);
          yield* p.data;
          cursor = p.hasMore ? (p.nextCursor ?? undefined) : undefined;
        } while (cursor);
      },

      async get(id: string, opts?: RequestOptions): Promise<Conversation> {
        const c = await readJson<Wire & { messages: Wire[] }>(
          await send("GET", `/conversations/${encodeURIComponent(id)}`, undefined, opts),
          (v) => Array.isArray(v.messages) && v.messages.every(isWire),
        );
        return {
          ...summary(c),
          messages: c.messages.map((m) => ({
            id: m.id as string,
            role: m.role as "user" | "assistant",
            content: m.content as string,
            sources: m.sources as string[],
            status: m.status as "completed" | "failed",
            createdAt: m.created_at as string,
            usage: usage(m.usage),
          })),
        };
      },

      async delete(id: string, opts?: RequestOptions): Promise<void> {
        const call = await send("DELETE", `/conversations/${encodeURIComponent(id)}`, undefined, opts);
        call.end();
        await call.res.body?.cancel().catch(() => {});
      },
    },
  };
}

/** The client `createClient` returns. */
export type ParleyClient = ReturnType<typeof createClient>;

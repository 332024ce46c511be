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
import { EventSourceParserStream } from "eventsource-parser/stream";
import { ParleyError, requestIdOf } from "./errors.ts";
import type { ChatEvent, ChatInput, ChatReply, Conversation, ConversationPage, ConversationSummary, Usage } from "./types.ts";

export { ParleyError } from "./errors.ts";
export type * from "./types.ts";

/** How to reach a Parley server. */
export interface ClientOptions {
  /** Up to and excluding `/v1`, e.g. `https://chat.example.com` or `http://host/prefix`. */
  baseUrl: string;
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

type Wire = Record<string, unknown>;

const isWire = (v: unknown): v is Wire => typeof v === "object" && v !== null && !Array.isArray(v);

const invalid = (res: Response, what: string) =>
  new ParleyError(res.status, "invalid_response", `Unexpected response from the server: ${what}.`, { requestId: requestIdOf(res) });

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A failure to get (or finish reading) a response, unless the caller aborted: a ParleyError. */
function connectionError(error: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted || error instanceof ParleyError) return error;
  return new ParleyError(0, "connection_error", `Connection to the server failed: ${describe(error)}`, { cause: error });
}

/** A 2xx body as a JSON object, checked by `ok` (else `invalid_response`). */
async function readJson<T extends Wire>(res: Response, ok: (v: Wire) => boolean, signal?: AbortSignal): Promise<T> {
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    throw connectionError(error, signal);
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

/** The wire's `usage` (snake_case, possibly absent from an older server) in camelCase. */
const usage = (u: unknown): Usage | null => {
  if (!u || typeof u !== "object") return null;
  const w = u as Wire;
  const n = (v: unknown) => (typeof v === "number" ? v : null);
  return { inputTokens: n(w.input_tokens), outputTokens: n(w.output_tokens) };
};

function toEvent(e: Wire): ChatEvent {
  switch (e.type) {
    case "start":
      return { type: "start", conversationId: e.conversation_id as string };
    case "end":
      return { type: "end", messageId: e.message_id as string, usage: usage(e.usage) };
    default:
      return e as ChatEvent; // token, sources and error share the wire's field names
  }
}

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;

  async function request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` };
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

  return {
    /** Sends a message and waits for the whole reply. */
    async chat(input: ChatInput): Promise<ChatReply> {
      const res = await request("POST", "/chat", chatBody(input, false), input.signal);
      const r = await readJson(res, (v) => typeof v.id === "string" && typeof v.content === "string", input.signal);
      return { id: r.id as string, conversationId: r.conversation_id as string, content: r.content as string, createdAt: r.created_at as string, usage: usage(r.usage) };
    },

    /**
     * Sends a message and yields the reply's events as they arrive. Aborting `signal` ends the
     * iteration, whenever it happens (the server still completes and stores the reply). A stream
     * that closes or breaks without `end` or `error` throws `ParleyError` with code
     * `stream_interrupted`; an event that is not JSON, `invalid_response`.
     */
    async *chatStream(input: ChatInput): AsyncGenerator<ChatEvent> {
      let res: Response;
      try {
        res = await request("POST", "/chat", chatBody(input, true), input.signal);
      } catch (error) {
        if (input.signal?.aborted) return;
        throw error;
      }
      const type = res.headers.get("content-type") ?? "";
      if (!res.body || !/^text\/event-stream\b/i.test(type)) {
        await res.body?.cancel().catch(() => {});
        throw invalid(res, `expected an event stream, got ${type ? `'${type}'` : "no content type"}`);
      }
      const events = res.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      try {
        for (;;) {
          let next: Awaited<ReturnType<typeof events.read>>;
          try {
            next = await events.read();
          } catch (error) {
            if (input.signal?.aborted) return;
            const message = `The stream broke before its end or error event: ${describe(error)}`;
            throw new ParleyError(0, "stream_interrupted", message, { requestId: requestIdOf(res), cause: error });
          }
          if (next.done) break;
          let data: unknown;
          try {
            data = JSON.parse(next.value.data);
          } catch {
            data = undefined;
          }
          if (!isWire(data) || typeof data.type !== "string") {
            throw invalid(res, `an event that is not a JSON object: '${next.value.data.slice(0, 60)}'`);
          }
          const event = toEvent(data);
          yield event;
          if (event.type === "end" || event.type === "error") return;
        }
      } finally {
        await events.cancel().catch(() => {});
      }
      if (input.signal?.aborted) return;
      throw new ParleyError(0, "stream_interrupted", "The stream closed before its end or error event.", {
        requestId: requestIdOf(res),
      });
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

      async delete(id: string): Promise<void> {
        await request("DELETE", `/conversations/${encodeURIComponent(id)}`);
      },
    },
  };
}

/** The client `createClient` returns. */
export type ParleyClient = ReturnType<typeof createClient>;

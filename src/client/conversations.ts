/** `client.conversations`: list (paged), read, page a conversation's messages, delete. */
import { type ResponseInfo, responseInfo, type WithResponse, withResponse } from "./response.ts";
import type { Send } from "./transport.ts";
import type {
  Conversation,
  ConversationPage,
  ConversationSummary,
  Message,
  MessagePage,
  RequestOptions,
} from "./types.ts";
import { isWire, pagination, readJson, summary, toMessage, type Wire } from "./wire.ts";

type PageQuery = { limit?: number; cursor?: string };

/** `?limit=…&cursor=…`, or nothing. (Not `params.size`: older browsers and runtimes lack it.) */
function query(q: PageQuery): string {
  const params = new URLSearchParams();
  if (q.limit !== undefined) params.set("limit", String(q.limit));
  if (q.cursor) params.set("cursor", q.cursor);
  return params.toString() ? `?${params}` : "";
}

const isPage = (v: Wire) => Array.isArray(v.data) && v.data.every(isWire) && isWire(v.pagination);
const conversationPath = (id: string) => `/conversations/${encodeURIComponent(id)}`;

export function conversations(send: Send) {
  /** One page of conversations, newest first; pass `nextCursor` back as `cursor` for the next. */
  async function page(q: PageQuery = {}, opts?: RequestOptions): Promise<WithResponse<ConversationPage>> {
    const call = await send("GET", `/conversations${query(q)}`, undefined, opts);
    const json = await readJson<{ data: Wire[]; pagination: Wire }>(call, isPage);
    return withResponse({ data: json.data.map(summary), ...pagination(json.pagination) }, call.res);
  }

  /**
   * One page of a conversation's messages: without `cursor` the most recent `limit` (default
   * 100), with a previous page's (or `get`'s) `nextCursor` the ones before those. A page is
   * oldest first, so prepend each page to what you have.
   */
  async function messages(id: string, q: PageQuery = {}, opts?: RequestOptions): Promise<WithResponse<MessagePage>> {
    const call = await send("GET", `${conversationPath(id)}/messages${query(q)}`, undefined, opts);
    const json = await readJson<{ data: Wire[]; pagination: Wire }>(call, isPage);
    return withResponse({ data: json.data.map(toMessage), ...pagination(json.pagination) }, call.res);
  }

  return {
    page,

    /** Every conversation, newest first, fetching page after page as the loop asks. */
    async *list(q: { limit?: number } = {}, opts?: RequestOptions): AsyncGenerator<ConversationSummary> {
      let cursor: string | undefined;
      do {
        const p = await page({ limit: q.limit, cursor }, opts);
        yield* p.data;
        cursor = p.hasMore ? (p.nextCursor ?? undefined) : undefined;
      } while (cursor);
    },

    /** A conversation with its most recent 100 messages (oldest first); `pagination` leads to older ones. */
    async get(id: string, opts?: RequestOptions): Promise<WithResponse<Conversation>> {
      const call = await send("GET", conversationPath(id), undefined, opts);
      const c = await readJson<Wire & { messages: Wire[] }>(
        call,
        (v) => Array.isArray(v.messages) && v.messages.every(isWire),
      );
      const conversation = { ...summary(c), messages: c.messages.map(toMessage), pagination: pagination(c.pagination) };
      return withResponse(conversation, call.res);
    },

    messages,

    /** Every message of a conversation, newest first, fetching older pages as the loop asks. */
    async *history(id: string, q: { limit?: number } = {}, opts?: RequestOptions): AsyncGenerator<Message> {
      let cursor: string | undefined;
      do {
        const p = await messages(id, { limit: q.limit, cursor }, opts);
        yield* [...p.data].reverse();
        cursor = p.hasMore ? (p.nextCursor ?? undefined) : undefined;
      } while (cursor);
    },

    /** Answers the 204's response (request id, rate-limit state). */
    async delete(id: string, opts?: RequestOptions): Promise<ResponseInfo> {
      const call = await send("DELETE", conversationPath(id), undefined, opts);
      call.end();
      await call.res.body?.cancel().catch(() => {});
      return responseInfo(call.res);
    },
  };
}

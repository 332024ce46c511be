/** What the client returns: the wire's objects in camelCase. */
import type { ServerErrorCode } from "./errors.ts";

/** Token counts the model provider reported for a reply; null when it reported none. */
export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
}

/** An assistant reply (`chat`). */
export interface ChatReply {
  id: string;
  conversationId: string;
  content: string;
  /** `stopped` when POST …/stop ended it early (`content` is then the partial reply). */
  status: "completed" | "stopped";
  createdAt: string;
  usage: Usage | null;
}

/**
 * One event of a streamed reply (`chatStream`, `resume`), in order: start, token*, sources, end —
 * or error. `id` is the event's sequence number within the reply (1 for `start`): what
 * `resume({ after })` takes. (Absent only from a server that predates resumable replies.)
 */
export type ChatEvent = { id?: number } & (
  | { type: "start"; conversationId: string; messageId?: string }
  | { type: "token"; content: string }
  | { type: "sources"; sources: string[] }
  | { type: "end"; messageId: string; status: "completed" | "stopped"; usage: Usage | null }
  | { type: "error"; error: { type: string; code: ServerErrorCode; message: string; param?: string } }
);

/** A message's status: `in_progress` while a reply is generated, then one of the others. */
export type MessageStatus = "in_progress" | "completed" | "failed" | "stopped";

/** A conversation in a list. */
export interface ConversationSummary {
  id: string;
  createdAt: string;
  updatedAt: string;
  title: string;
}

/** A message of a conversation. */
export interface Message {
  id: string;
  role: "user" | "assistant";
  content: string;
  sources: string[];
  status: MessageStatus;
  createdAt: string;
  usage: Usage | null;
}

/** What `stop` answers: the reply as stored once it ended (or as it is after the server's 5 s wait). */
export interface StoppedReply extends Message {
  conversationId: string;
}

/** Where a page ends: pass `nextCursor` back as `cursor` for the next (older) page. */
export interface Pagination {
  hasMore: boolean;
  nextCursor: string | null;
}

/** A conversation with its most recent messages (up to 100), oldest first; older ones via `conversations.messages`. */
export interface Conversation extends ConversationSummary {
  messages: Message[];
  pagination: Pagination;
}

/** One page of conversations. */
export interface ConversationPage extends Pagination {
  data: ConversationSummary[];
}

/** One page of a conversation's messages: the page is oldest first, pages go back in time. */
export interface MessagePage extends Pagination {
  data: Message[];
}

/** Per-call settings; each overrides the client's own for this call. */
export interface RequestOptions {
  /** Aborting it stops the call: a pending call rejects with the signal's reason (AbortError); a stream ends. */
  signal?: AbortSignal;
  /** Milliseconds for each attempt to get a complete answer (a stream: the longest silence). */
  timeout?: number;
  /** Retries on connection errors, 429 and 503 (0 = none). */
  maxRetries?: number;
}

/** What `chat` and `chatStream` send, plus per-call settings. */
export interface ChatInput extends RequestOptions {
  message: string;
  conversationId?: string;
  /**
   * Sent as `Idempotency-Key` (1–255 printable ASCII characters): a retry with the same key and
   * input gets the same reply, never a second one — so with it a POST whose answer was lost is
   * sent again; without it, it is not.
   */
  idempotencyKey?: string;
}

/** Which reply `resume` and `stop` act on, plus per-call settings. */
export interface ReplyRef extends RequestOptions {
  conversationId: string;
  messageId: string;
}

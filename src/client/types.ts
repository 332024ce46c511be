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
  createdAt: string;
  usage: Usage | null;
}

/** One event of a streamed reply (`chatStream`), in order: start, token*, sources, end — or error. */
export type ChatEvent =
  | { type: "start"; conversationId: string }
  | { type: "token"; content: string }
  | { type: "sources"; sources: string[] }
  | { type: "end"; messageId: string; usage: Usage | null }
  | { type: "error"; error: { type: string; code: ServerErrorCode; message: string; param?: string } };

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
  status: "completed" | "failed";
  createdAt: string;
  usage: Usage | null;
}

/** A conversation with its messages, oldest first. */
export interface Conversation extends ConversationSummary {
  messages: Message[];
}

/** One page of conversations. */
export interface ConversationPage {
  data: ConversationSummary[];
  hasMore: boolean;
  nextCursor: string | null;
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
}

/** What the client returns: the wire's objects in camelCase. */

/** An assistant reply (`chat`). */
export interface ChatReply {
  id: string;
  conversationId: string;
  content: string;
  /** `stopped` when POST …/stop ended it early. */
  status: "completed" | "stopped";
  createdAt: string;
}

/**
 * One event of a streamed reply (`chatStream`, `resume`), in order: start, token*, sources, end —
 * or error. `id` is the event's sequence number within the reply (what `resume({ after })` takes).
 */
export type ChatEvent = { id?: number } & (
  | { type: "start"; conversationId: string; messageId?: string }
  | { type: "token"; content: string }
  | { type: "sources"; sources: string[] }
  | { type: "end"; messageId: string; status?: "completed" | "stopped" }
  | { type: "error"; error: { type: string; code: string; message: string; param?: string } }
);

/** A reply's status: `in_progress` while it is generated, then one of the others. */
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
}

/** What `stop` answers: the reply as stored once it ended (or as it is after 5 s). */
export interface StoppedReply extends Message {
  conversationId: string;
}

/** Which reply `resume` and `stop` act on. */
export interface ReplyRef {
  conversationId: string;
  messageId: string;
  signal?: AbortSignal;
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

/** What `chat` and `chatStream` send. */
export interface ChatInput {
  message: string;
  conversationId?: string;
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key`: a retry with the same key and input gets the same reply, never a second one. */
  idempotencyKey?: string;
}

/** The JSON resources of the /v1 API, in wire form (dates are ISO 8601 strings). */
import type { Certainty } from "./analytics.ts";
import type { MessageStatus, ReplyStatus, Usage } from "./events.ts";
import type { Feedback } from "./operate.ts";

/** Who wrote a message. */
export const MESSAGE_ROLES = ["user", "assistant"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** The answer of POST /v1/chat without streaming: the assistant message. */
export interface ChatReply {
  id: string;
  conversation_id: string;
  content: string;
  /** The documents the reply cites, in order of first citation: `[k]` in `content` is `sources[k-1]`. */
  sources: string[];
  status: ReplyStatus;
  created_at: string;
  usage: Usage | null;
  /** How sure the answer is (analytics.ts); null only for a reply stored before it was recorded. */
  certainty: Certainty | null;
}

/** A message of a conversation. */
export interface Message {
  id: string;
  role: MessageRole;
  content: string;
  sources: string[];
  status: MessageStatus;
  created_at: string;
  usage: Usage | null;
  /** The rating given to an assistant reply (PUT …/feedback); null when none. */
  feedback: Feedback | null;
}

/** A reply as POST …/stop answers it: the message, with its conversation. */
export interface Reply extends Message {
  conversation_id: string;
}

export interface ConversationSummary {
  id: string;
  created_at: string;
  updated_at: string;
  title: string;
  /** The knowledge base its replies search and cite; null once that knowledge base is deleted. */
  knowledge_base_id: string | null;
}

/** Paging of a list: pass `next_cursor` as `cursor` for the next page. */
export interface Pagination {
  has_more: boolean;
  next_cursor: string | null;
}

export interface ConversationDetail extends ConversationSummary {
  /** The most recent messages, oldest first; `pagination` leads to older ones. */
  messages: Message[];
  pagination: Pagination;
}

export interface ConversationList {
  data: ConversationSummary[];
  pagination: Pagination;
}

export interface MessageList {
  data: Message[];
  pagination: Pagination;
}

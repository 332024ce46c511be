/**
 * What the client returns: the wire's objects (src/contract, defined once for server and client)
 * with their keys in camelCase, derived by `Camel` so the two can never drift apart.
 */
import type * as Wire from "../contract/index.ts";

/** `conversation_id` → `conversationId`. */
type CamelKey<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelKey<T>>}` : S;
/** A wire type with every key in camelCase, through arrays, unions and nested objects. */
export type Camel<T> = T extends readonly (infer U)[]
  ? Camel<U>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelKey<K> : K]: Camel<T[K]> }
    : T;

/** Token counts the model provider reported for a reply; null when it reported none. */
export type Usage = Camel<Wire.Usage>;

/** An assistant reply (`chat`); `status` is `stopped` when POST …/stop ended it early (`content` is then partial). */
export type ChatReply = Camel<Wire.ChatReply>;

/**
 * One event of a streamed reply (`chatStream`, `resume`), in order: start, tokens with `sources`
 * among them (sent again, whole, each time the list grows: keep the last), end — or error. `id`
 * is the event's sequence number within the reply (1 for `start`): what `resume({ after })` takes.
 * (Absent only from a server that predates resumable replies.)
 */
export type ChatEvent = { id?: number } & (
  | Exclude<Camel<Wire.StreamEvent>, { type: "start" }>
  // `messageId` is absent only from a server that predates resumable replies.
  | (Omit<Extract<Camel<Wire.StreamEvent>, { type: "start" }>, "messageId"> & { messageId?: string })
);

/** A message's status: `in_progress` while a reply is generated, then one of the others. */
export type MessageStatus = Wire.MessageStatus;

/** A conversation in a list. */
export type ConversationSummary = Camel<Wire.ConversationSummary>;

/** A message of a conversation. */
export type Message = Camel<Wire.Message>;

/** What `stop` answers: the reply as stored once it ended (or as it is after the server's 5 s wait). */
export type StoppedReply = Camel<Wire.Reply>;

/** Where a page ends: pass `nextCursor` back as `cursor` for the next (older) page. */
export type Pagination = Camel<Wire.Pagination>;

/** A conversation with its most recent messages (up to 100), oldest first; older ones via `conversations.messages`. */
export type Conversation = Camel<Wire.ConversationDetail>;

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

/** A knowledge base with its counts (`admin.knowledgeBases`). */
export type KnowledgeBase = Camel<Wire.KnowledgeBase>;
/** A document as listed (no content). */
export type DocumentSummary = Camel<Wire.DocumentSummary>;
/** A document with its content. */
export type Document = Camel<Wire.Document>;
/** One document to upload; `metadata` is kept as given. */
export interface DocumentInput {
  url: string;
  content: string;
  title?: string;
  format?: Wire.DocumentFormat;
  metadata?: Record<string, unknown>;
}
/** What a bulk upload answers: counts and one result per line or file. */
export type BulkResult = Camel<Wire.BulkResult>;
/** One ranked passage of a search. */
export type SearchResult = Camel<Wire.SearchResult>;
/** An API key (never its secret). */
export type ApiKey = Camel<Wire.ApiKey>;
/** A new API key with its secret, shown this once. */
export type CreatedApiKey = Camel<Wire.CreatedApiKey>;
/** What `admin.keys.create` takes (`update`: every field optional; `rpm`/`rpd` null: the plan's default). */
export interface KeyInput {
  name: string;
  plan: Wire.Plan;
  rpm?: number;
  rpd?: number;
  role?: Wire.KeyRole;
  knowledgeBaseIds?: string[];
  expiresAt?: string | null;
  /** Public keys (`role: "public"`): the exact origins of the pages the key sits in (required). */
  allowedOrigins?: string[];
  /** Public keys: each visitor's and each client IP's limits (defaults 10/min, 200/day; 30/min, 600/day). */
  visitorRpm?: number;
  visitorRpd?: number;
  ipRpm?: number;
  ipRpd?: number;
  /** Public keys: sessions first need a solved proof-of-work challenge. */
  requireProofOfWork?: boolean;
  /** Public keys: sessions need a user token the site signs with this secret (HS256); null removes it. */
  userTokenSecret?: string | null;
}
/** A knowledge base's web source, with its last sync (`admin.sources`). */
export type Source = Camel<Wire.Source>;
/** One sync of a source: status, page counts, errors. */
export type SourceSync = Camel<Wire.SourceSync>;
/** What `admin.sources.create` takes. */
export interface SourceInput {
  url: string;
  type?: Wire.SourceType;
  include?: string[];
  exclude?: string[];
  maxPages?: number;
  maxDepth?: number;
  keepQueryStrings?: boolean;
  refreshIntervalHours?: number | null;
  allowLargeDeletions?: boolean;
}
/** One page of an admin list. */
export interface Page<T> extends Pagination {
  data: T[];
}

/**
 * The success body of each route, at the type level, so `h.call` and `send` type a reply's
 * `json` from the method and path they were given: `h.call("GET", `/v1/conversations/${id}`)`
 * is a `Reply<ConversationDetail>` with no type argument. The bodies are the wire types of
 * src/contract (and the OpenAI-compatible schemas), imported, never restated; a route missing
 * here, or a path only known as `string`, answers `unknown`, so a test states what it expects.
 */
import type { Static } from "elysia";
import type {
  ApiKey,
  ApiKeyList,
  BulkResult,
  ChatReply,
  ConversationDetail,
  ConversationList,
  CreatedApiKey,
  Document,
  DocumentList,
  Feedback,
  FeedbackList,
  KnowledgeBase,
  KnowledgeBaseList,
  MessageList,
  PassageList,
  SearchResults,
  SetupStatus,
  Source,
  SourceList,
  SourceSync,
  Reply as StoppedReply,
  UsageReport,
} from "../../src/contract/index.ts";
import type { buildOpenApi } from "../../src/mod.ts";
import type { CompletionResponse, ModelList, ModelObject } from "../../src/openai-compat/model.ts";

/** No body: the route answers 204 (the reply's `json` is undefined). */
type NoContent = undefined;

declare const bySentBody: unique symbol;
/** A route whose answer depends on how the request body was sent: `init.json`, or a raw `init.body`. */
interface BySentBody<Json, Raw> {
  readonly [bySentBody]: { json: Json; raw: Raw };
}

/**
 * Method and path pattern, as the routes in src declare them (`:name` is one path segment), to
 * the body of a 2xx answer. A query string is not part of the pattern. Routes answering SSE
 * (POST /v1/chat with `stream: true`) are typed by their JSON form; a test reads `text` then.
 */
export interface Routes {
  "POST /v1/chat": ChatReply;
  "GET /v1/conversations": ConversationList;
  "GET /v1/conversations/:id": ConversationDetail;
  "DELETE /v1/conversations/:id": NoContent;
  "GET /v1/conversations/:id/messages": MessageList;
  /** Server-Sent Events, or 204 when the reply has ended: `text`, never `json`. */
  "GET /v1/conversations/:id/messages/:message_id/events": NoContent;
  "POST /v1/conversations/:id/messages/:message_id/stop": StoppedReply;
  "PUT /v1/conversations/:id/messages/:message_id/feedback": Feedback;
  "DELETE /v1/conversations/:id/messages/:message_id/feedback": NoContent;
  "GET /v1/feedback": FeedbackList;
  "GET /v1/usage": UsageReport;
  "POST /v1/keys": CreatedApiKey;
  "GET /v1/keys": ApiKeyList;
  "GET /v1/keys/:id": ApiKey;
  "PATCH /v1/keys/:id": ApiKey;
  "POST /v1/keys/:id/revoke": ApiKey;
  "GET /v1/setup": SetupStatus;
  "POST /v1/setup": CreatedApiKey;
  "POST /v1/knowledge_bases": KnowledgeBase;
  "GET /v1/knowledge_bases": KnowledgeBaseList;
  "GET /v1/knowledge_bases/:id": KnowledgeBase;
  "PATCH /v1/knowledge_bases/:id": KnowledgeBase;
  "DELETE /v1/knowledge_bases/:id": NoContent;
  "GET /v1/knowledge_bases/:id/documents": DocumentList;
  /** One JSON document answers that document; ndjson and multipart answer the bulk result. */
  "POST /v1/knowledge_bases/:id/documents": BySentBody<Document, BulkResult>;
  "GET /v1/knowledge_bases/:id/documents/:doc_id": Document;
  "DELETE /v1/knowledge_bases/:id/documents/:doc_id": NoContent;
  "GET /v1/knowledge_bases/:id/documents/:doc_id/passages": PassageList;
  "POST /v1/knowledge_bases/:id/search": SearchResults;
  "POST /v1/knowledge_bases/:id/sources": Source;
  "GET /v1/knowledge_bases/:id/sources": SourceList;
  "GET /v1/knowledge_bases/:id/sources/:source_id": Source;
  "DELETE /v1/knowledge_bases/:id/sources/:source_id": NoContent;
  "POST /v1/knowledge_bases/:id/sources/:source_id/sync": SourceSync;
  "POST /v1/chat/completions": Static<typeof CompletionResponse>;
  "GET /v1/models": Static<typeof ModelList>;
  "GET /v1/models/:id": Static<typeof ModelObject>;
  "GET /v1/openapi.json": ReturnType<typeof buildOpenApi>;
}

/** How the request body was sent: as `init.json`, or raw (`init.body`, or none). */
export type SentAs = "json" | "raw";

/**
 * The success body of `method path`, or `unknown` when no route of the table matches it — or
 * when the method or the path is only known as `string`, which could be any route.
 */
export type ResponseOf<M extends string, P extends string, S extends SentAs> = string extends M
  ? unknown
  : string extends P
    ? unknown
    : BodyOf<MatchingRoutes<M, Segments<PathOf<P>>>, S>;

type BodyOf<K, S extends SentAs> = [K] extends [never]
  ? unknown
  : K extends keyof Routes
    ? Routes[K] extends BySentBody<infer Json, infer Raw>
      ? { json: Json; raw: Raw }[S]
      : Routes[K]
    : unknown;

/** The keys of Routes whose method and path pattern match (a union: none or one, as no two overlap). */
type MatchingRoutes<M extends string, S extends string[]> = {
  [K in keyof Routes]: K extends `${M} ${infer Pattern}`
    ? Matches<S, Segments<Pattern>> extends true
      ? K
      : never
    : never;
}[keyof Routes];

/** The path without its query string. */
type PathOf<P extends string> = P extends `${infer Path}?${string}` ? Path : P;

type Segments<P extends string> = P extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [P];

/**
 * Whether path segments fit a pattern's: `:name` takes any one segment (an interpolated id is
 * `string`), any other must be that literal — so `${string}` in place of a literal never fits.
 */
type Matches<S extends string[], Pattern extends string[]> = S extends [
  infer A extends string,
  ...infer Rest extends string[],
]
  ? Pattern extends [infer B extends string, ...infer PatternRest extends string[]]
    ? B extends `:${string}`
      ? Matches<Rest, PatternRest>
      : [A] extends [B]
        ? Matches<Rest, PatternRest>
        : false
    : false
  : Pattern extends []
    ? true
    : false;

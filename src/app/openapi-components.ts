/** Every wire type the OpenAPI document names under `components.schemas`, from the route schemas. */
import { ApiKey, ApiKeyList, CreatedApiKey, CreateKey, SetupRequest, SetupStatus, UpdateKey } from "../auth/index.ts";
import { ChatReply, chatBody, StreamEvent } from "../chat/index.ts";
import {
  ConversationDetail,
  ConversationList,
  ConversationSummary,
  Message,
  MessageList,
  Reply,
} from "../conversations/index.ts";
import { ErrorBody, ErrorPayload } from "../http/model.ts";
import {
  BulkResult,
  CreateKnowledgeBase,
  Document,
  DocumentInput,
  DocumentList,
  DocumentSummary,
  KnowledgeBase,
  KnowledgeBaseList,
  SearchBody,
  SearchResult,
  SearchResults,
  UpdateKnowledgeBase,
} from "../knowledge/index.ts";
import { CompletionResponse, completionBody, ModelList, ModelObject, OpenAiErrorBody } from "../openai-compat/index.ts";

/** Each schema under its component name (`maxChars`: the `maxLength` stated for a chat message). */
export const wireSchemas = (maxChars: number): Record<string, unknown> => ({
  Error: ErrorPayload,
  ErrorBody,
  ChatRequest: chatBody(maxChars),
  ChatReply,
  StreamEvent,
  ConversationSummary,
  ConversationList,
  Message,
  ConversationDetail,
  MessageList,
  Reply,
  KnowledgeBase,
  KnowledgeBaseList,
  KnowledgeBaseCreate: CreateKnowledgeBase,
  KnowledgeBaseUpdate: UpdateKnowledgeBase,
  DocumentInput,
  DocumentSummary,
  Document,
  DocumentList,
  BulkResult,
  SearchRequest: SearchBody,
  SearchResult,
  SearchResults,
  ApiKey,
  ApiKeyList,
  CreatedApiKey,
  KeyCreate: CreateKey,
  KeyUpdate: UpdateKey,
  SetupStatus,
  SetupRequest,
  OpenAiErrorBody,
  ChatCompletionRequest: completionBody,
  ChatCompletion: CompletionResponse,
  ModelList,
  Model: ModelObject,
});

/**
 * The OpenAI-compatible door: POST /chat/completions, GET /models and /models/:id, for the
 * `openai` SDKs, chat UIs (Open WebUI, LibreChat…) and frameworks that speak Chat Completions.
 * Same keys, limits, rate-limit headers and Idempotency-Key as POST /chat, through the same chat
 * service (chat/): this folder only translates the wire form (docs/api.md#openai-compatible).
 */
import { Elysia, t } from "elysia";
import { admission } from "../auth/index.ts";
import { type ChatDeps, IDEMPOTENCY_PARAMETER, startReply } from "../chat/index.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ApiError, clip } from "../http/errors.ts";
import { routeDoc } from "../http/route-doc.ts";
import { sha256Hex } from "../primitives.ts";
import { completionOf } from "./completion.ts";
import { openAiErrors } from "./errors.ts";
import { CompletionResponse, ModelList, ModelObject, OpenAiErrorBody } from "./model.ts";
import { type KnowledgeModel, modelsOf, resolveModel } from "./models.ts";
import { completionBody, readCompletion } from "./request.ts";
import { completionStream } from "./stream.ts";
import { titlesOf } from "./titles.ts";

/** The header naming the Parley conversation a completion is stored in (and, sent back, continues). */
export const CONVERSATION_HEADER = "x-parley-conversation-id";

/** The same header as POST /chat's; its example differs (one key is per request body). */
const COMPLETION_IDEMPOTENCY = {
  ...IDEMPOTENCY_PARAMETER,
  schema: { ...IDEMPOTENCY_PARAMETER.schema, examples: ["8d41c0b2-completion"] },
};

const CONVERSATION_PARAMETER = {
  name: "X-Parley-Conversation-Id",
  in: "header" as const,
  description: "Continue this stored conversation (its history replaces the earlier turns of `messages`).",
  schema: { type: "string" },
};

/** Histories make these bodies larger than POST /chat's; the agent's budget trims what it is sent. */
const BODY_FACTOR = 8;

const modelObject = (m: KnowledgeModel) => ({
  id: m.id,
  object: "model" as const,
  created: m.created,
  owned_by: "parley" as const,
});

const errors = { 400: OpenAiErrorBody, 401: OpenAiErrorBody, 404: OpenAiErrorBody, 429: OpenAiErrorBody };

export const openAiRoutes = (deps: ChatDeps) =>
  new Elysia({ tags: ["OpenAI-compatible"] })
    .use(openAiErrors())
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps))
    .use(jsonBody(deps.options.maxBodyBytes * BODY_FACTOR))
    .post(
      "/chat/completions",
      async ({ body, apiKey, request, set }) => {
        const model = await resolveModel(deps.db, apiKey, body.model);
        const asked = readCompletion(body, deps.options.maxMessageChars);
        const continued = request.headers.get(CONVERSATION_HEADER);
        const stream = body.stream === true;
        const started = await startReply(deps, {
          key: apiKey,
          // A continued conversation keeps its knowledge base; `default` then means that one.
          knowledgeBaseId: continued && body.model === "default" ? undefined : model.knowledgeBaseId,
          message: asked.question,
          field: { param: asked.questionParam, name: "question" },
          // The stored history continues the conversation, in place of the one in `messages`.
          conversationId: continued,
          history: continued ? [] : asked.history,
          settings: asked.settings,
          stream,
          trace: deps.tracing?.of(request),
          idempotency: {
            key: request.headers.get("idempotency-key"),
            hash: () => sha256Hex(JSON.stringify(["chat.completions", body, continued])),
          },
        }).catch((error) => {
          if (error instanceof ApiError && error.options.param === "knowledge_base_id")
            throw new ApiError(error.code, error.message, { param: "model" });
          if (error instanceof ApiError && error.options.param === "conversation_id")
            throw new ApiError("not_found", `No conversation '${clip(continued ?? "")}' for this key.`, {
              param: "X-Parley-Conversation-Id",
            });
          throw error;
        });
        // A continued conversation answers from its own knowledge base (what `default` means there).
        const kbId = started.knowledgeBaseId;
        const answering =
          kbId && kbId !== model.knowledgeBaseId ? await resolveModel(deps.db, apiKey, kbId).catch(() => model) : model;
        const { reply } = started;
        const created = Math.floor(deps.now() / 1000);
        const replyStream = deps.replies.stream(reply);
        set.headers[CONVERSATION_HEADER] = reply.conversationId;
        const titles = (urls: string[]) => titlesOf(deps.db, answering.knowledgeBaseId, urls);
        if (stream) {
          return (await completionStream(replyStream, {
            model: answering.id,
            created,
            includeUsage: body.stream_options?.include_usage === true,
            citations: body.parley_citations ?? "links",
            headers: { [CONVERSATION_HEADER]: reply.conversationId },
            titles,
          })) as never;
        }
        const r = await replyStream.outcome();
        return completionOf(r, answering.id, created, await titles(r.sources), body.parley_citations ?? "links");
      },
      {
        body: completionBody,
        response: { 200: CompletionResponse, ...errors, 413: OpenAiErrorBody, 415: OpenAiErrorBody },
        detail: routeDoc(
          "Chat Completions (OpenAI-compatible)",
          "OpenAI's Chat Completions over Parley: `model` is a knowledge base, the last user message the question. With `stream: true`, `chat.completion.chunk` events then `data: [DONE]`. The reply is stored as a conversation named by the `X-Parley-Conversation-Id` response header; send it back to continue with the stored history.",
          {
            operationId: "createChatCompletion",
            success: "ChatCompletion",
            body: "ChatCompletionRequest",
            parameters: [COMPLETION_IDEMPOTENCY, CONVERSATION_PARAMETER],
          },
        ),
      },
    )
    .get(
      "/models",
      async ({ apiKey }) => ({ object: "list" as const, data: (await modelsOf(deps.db, apiKey)).map(modelObject) }),
      {
        response: { 200: ModelList, ...errors },
        detail: routeDoc("List models", "The knowledge bases this key may use, as OpenAI models.", {
          operationId: "listModels",
          success: "ModelList",
        }),
      },
    )
    .get("/models/:id", async ({ apiKey, params }) => modelObject(await resolveModel(deps.db, apiKey, params.id)), {
      params: t.Object({ id: t.String() }),
      response: { 200: ModelObject, ...errors },
      detail: routeDoc("Retrieve a model", "A knowledge base this key may use, by name or id; 404 otherwise.", {
        operationId: "retrieveModel",
        success: "Model",
      }),
    });

export { CompletionResponse, ModelList, ModelObject, OpenAiErrorBody } from "./model.ts";
export { type KnowledgeModel, modelsOf, resolveModel } from "./models.ts";
export { completionBody } from "./request.ts";
export { responsesRoutes } from "./responses.ts";
export { DeletedResponse, ResponseObject, ResponseStreamEvent } from "./responses-model.ts";
export { responseBody } from "./responses-request.ts";

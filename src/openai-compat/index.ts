/**
 * The OpenAI-compatible door: POST /chat/completions, GET /models and /models/:id, for the
 * `openai` SDKs, chat UIs (Open WebUI, LibreChat…) and frameworks that speak Chat Completions.
 * Same keys, limits, rate-limit headers and Idempotency-Key as POST /chat, through the same chat
 * service (chat/): this folder only translates the wire form (docs/api.md#openai-compatible).
 */
import { Elysia, t } from "elysia";
import { guard } from "../auth/index.ts";
import { sha256Hex } from "../bytes.ts";
import { type ChatDeps, IDEMPOTENCY_PARAMETER, idempotencyKeyOf, startReply } from "../chat/index.ts";
import { jsonBody } from "../http/body.ts";
import { httpCore } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { routeDoc } from "../http/route-doc.ts";
import { clip } from "../http/text.ts";
import { Accumulator, annotationsOf, completionId, finishReason, type Outcome } from "./completion.ts";
import { openAiErrors } from "./errors.ts";
import { CompletionResponse, ModelList, ModelObject, OpenAiErrorBody } from "./model.ts";
import { type KnowledgeModel, modelsOf, resolveModel } from "./models.ts";
import { completionBody, readCompletion } from "./request.ts";
import { completionStream, type EventFeed } from "./stream.ts";
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

/** The reply's events folded to their outcome; throws the reply's error. */
function collect(feed: EventFeed): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const acc = new Accumulator();
    let unsubscribe = () => {};
    let done = false;
    unsubscribe = feed.subscribe(({ event }) => {
      if (done) return;
      const r = acc.add(event);
      if (r === null) return;
      done = true;
      queueMicrotask(() => unsubscribe());
      if (r instanceof ApiError) reject(r);
      else resolve(r);
    }, 0);
  });
}

const errors = { 400: OpenAiErrorBody, 401: OpenAiErrorBody, 404: OpenAiErrorBody, 429: OpenAiErrorBody };

export const openAiRoutes = (deps: ChatDeps) =>
  new Elysia({ tags: ["OpenAI-compatible"] })
    .use(openAiErrors())
    .use(httpCore(deps.logger))
    .use(guard(deps))
    .use(jsonBody(deps.options.maxBodyBytes * BODY_FACTOR))
    .post(
      "/chat/completions",
      async ({ body, apiKey, request, set }) => {
        const model = await resolveModel(deps.db, apiKey, body.model);
        const asked = readCompletion(body, deps.options.maxMessageChars);
        const continued = request.headers.get(CONVERSATION_HEADER);
        const idemKey = idempotencyKeyOf(request);
        const stream = body.stream === true;
        const started = await startReply(deps, {
          key: apiKey,
          // A continued conversation keeps its knowledge base; `default` then means that one.
          knowledgeBaseId: continued && body.model === "default" ? undefined : model.knowledgeBaseId,
          message: asked.question,
          // The stored history continues the conversation, in place of the one in `messages`.
          conversationId: continued,
          history: continued ? [] : asked.history,
          settings: asked.settings,
          stream,
          trace: deps.tracing?.of(request),
          idempotency: idemKey
            ? { key: idemKey, hash: await sha256Hex(JSON.stringify(["chat.completions", body, continued])) }
            : undefined,
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
        const kbId = started.kind === "run" ? started.knowledgeBaseId : null;
        const answering =
          kbId && kbId !== model.knowledgeBaseId ? await resolveModel(deps.db, apiKey, kbId).catch(() => model) : model;
        const message =
          started.kind === "run"
            ? { id: started.reply.id, conversationId: started.conversationId }
            : { id: started.message.id, conversationId: started.message.conversationId };
        const created = Math.floor(deps.now() / 1000);
        const feed = deps.replies.feed(message.id);
        set.headers[CONVERSATION_HEADER] = message.conversationId;
        if (stream) {
          return (await completionStream(feed, {
            model: answering.id,
            created,
            includeUsage: body.stream_options?.include_usage === true,
            keepAliveMs: deps.options.keepAliveMs,
            headers: { [CONVERSATION_HEADER]: message.conversationId },
            titles: (urls) => titlesOf(deps.db, answering.knowledgeBaseId, urls),
          })) as never;
        }
        const r = await collect(feed);
        const annotations = annotationsOf(
          r.content,
          r.sources,
          await titlesOf(deps.db, answering.knowledgeBaseId, r.sources),
        );
        return {
          id: completionId(r.messageId),
          object: "chat.completion" as const,
          created,
          model: answering.id,
          choices: [
            {
              index: 0,
              message: { role: "assistant" as const, content: r.content, refusal: null, annotations },
              logprobs: null,
              finish_reason: finishReason(r.status),
            },
          ],
          usage: r.usage,
        };
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

export { type KnowledgeModel, modelsOf, resolveModel } from "./models.ts";

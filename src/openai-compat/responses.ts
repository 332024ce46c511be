/**
 * OpenAI's Responses API over Parley: POST /responses, GET and DELETE /responses/:id, for the
 * clients that speak it by default (the AI SDK's OpenAI provider, the OpenAI Agents SDK, Codex,
 * LangChain with useResponsesApi). An adapter like the Chat Completions door: the same keys,
 * limits and Idempotency-Key, through the same chat service; a response is a stored reply
 * (response-object.ts), `previous_response_id` continues the conversation it belongs to.
 */
import { Elysia } from "elysia";
import { type ApiKeyInfo, admission } from "../auth/index.ts";
import { type ChatDeps, startReply } from "../chat/index.ts";
import { deleteConversation, deleteTurn, findConversation } from "../conversations/index.ts";
import { ownerOf } from "../db/owner.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ApiError, clip } from "../http/errors.ts";
import { isId, sha256Hex } from "../primitives.ts";
import { openAiErrors } from "./errors.ts";
import { resolveModel } from "./models.ts";
import { type Echo, messageIdOf, outputText, responseIdOf, responseOf } from "./response-object.ts";
import { ResponseIdParams, responseRoutesDoc } from "./responses-model.ts";
import { readResponse, responseBody } from "./responses-request.ts";
import { responseStream } from "./responses-stream.ts";
import { titlesOf } from "./titles.ts";

const BODY_FACTOR = 8;

/** The stored reply a response id names, if this key owns it; 404 (naming `param`) otherwise. */
async function replyOf(deps: ChatDeps, key: ApiKeyInfo, id: string, param: string) {
  const messageId = messageIdOf(id);
  const reply = messageId ? await deps.replies.find(ownerOf(key), messageId) : null;
  if (!reply || reply.role !== "assistant")
    throw new ApiError("not_found", `No response '${clip(id)}' for this key.`, { param });
  return reply;
}

/** The knowledge base a conversation answers from, as a model name (its id if the key may no longer use it). */
async function modelOfConversation(deps: ChatDeps, key: ApiKeyInfo, conversationId: string) {
  const kbId = (await findConversation(deps.db, ownerOf(key), conversationId))?.kbId ?? null;
  if (!kbId) return { name: "default", kbId: null };
  return { name: (await resolveModel(deps.db, key, kbId).catch(() => null))?.id ?? kbId, kbId };
}

export const responsesRoutes = (deps: ChatDeps) =>
  new Elysia({ tags: ["OpenAI-compatible"] })
    .use(openAiErrors())
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps))
    .use(jsonBody(deps.options.maxBodyBytes * BODY_FACTOR))
    .post(
      "/responses",
      async ({ body, apiKey, request }) => {
        const asked = await readResponse(body, deps.options.maxMessageChars, async (id) =>
          isId("msg", id) ? ((await deps.replies.find(ownerOf(apiKey), id))?.content ?? null) : null,
        );
        const model = await resolveModel(deps.db, apiKey, body.model);
        const previousId = body.previous_response_id ?? null;
        const previous = previousId ? await replyOf(deps, apiKey, previousId, "previous_response_id") : null;
        const stream = body.stream === true;
        const started = await startReply(deps, {
          key: apiKey,
          // A continued conversation keeps its knowledge base; `default` then means that one.
          knowledgeBaseId: previous && body.model === "default" ? undefined : model.knowledgeBaseId,
          message: asked.question,
          field: { param: asked.questionParam, name: "question" },
          conversationId: previous?.conversationId ?? null,
          history: previous ? [] : asked.history,
          settings: asked.settings,
          stream,
          trace: deps.tracing?.of(request),
          idempotency: {
            key: request.headers.get("idempotency-key"),
            hash: () => sha256Hex(JSON.stringify(["responses", body])),
          },
        }).catch((error) => {
          if (error instanceof ApiError && error.options.param === "knowledge_base_id")
            throw new ApiError(error.code, error.message, { param: "model" });
          if (error instanceof ApiError && error.options.param === "conversation_id")
            throw new ApiError("not_found", `No response '${clip(previousId ?? "")}' for this key.`, {
              param: "previous_response_id",
            });
          throw error;
        });
        const { reply } = started;
        const kbId = started.knowledgeBaseId ?? model.knowledgeBaseId;
        const answering =
          kbId !== model.knowledgeBaseId ? await resolveModel(deps.db, apiKey, kbId).catch(() => model) : model;
        const store = body.store !== false;
        const echo: Echo = {
          instructions: body.instructions ?? null,
          max_output_tokens: body.max_output_tokens ?? null,
          temperature: body.temperature ?? null,
          top_p: body.top_p ?? null,
          previous_response_id: previousId,
          store,
        };
        const owner = ownerOf(apiKey);
        // `store: false`: the turn is forgotten once answered (a new conversation whole, with its
        // history) — once, whether the answer's end or a client that left first gets there.
        let forgetting: Promise<unknown> | undefined;
        const ended = async () => {
          if (store) return;
          forgetting ??= previous
            ? deleteTurn(deps.db, owner, reply)
            : deleteConversation(deps.db, owner, reply.conversationId);
          await forgetting;
        };
        if (!store && stream)
          void deps.replies
            .stream(reply)
            .outcome()
            .catch(() => undefined)
            .then(ended)
            .catch((error) => deps.logger.warn({ error: String(error) }, "store: false could not forget a reply"));
        const citations = body.parley_citations ?? "links";
        const titles = (urls: string[]) => titlesOf(deps.db, answering.knowledgeBaseId, urls);
        const replyStream = deps.replies.stream(reply);
        if (stream) {
          return (await responseStream(replyStream, {
            model: answering.id,
            createdAt: reply.createdAt,
            citations,
            echo,
            headers: {},
            titles,
            ended,
          })) as never;
        }
        const r = await replyStream.outcome().finally(ended);
        const part = outputText(r.content, r.sources, await titles(r.sources), citations);
        return responseOf({ ...r, messageId: r.id, createdAt: reply.createdAt, model: answering.id, echo }, part);
      },
      { body: responseBody, ...responseRoutesDoc.create },
    )
    .get(
      "/responses/:id",
      async ({ apiKey, params }) => {
        const reply = await replyOf(deps, apiKey, params.id, "response_id");
        const model = await modelOfConversation(deps, apiKey, reply.conversationId);
        const sources = reply.sources ?? [];
        const titles = model.kbId ? await titlesOf(deps.db, model.kbId, sources) : new Map<string, string>();
        const usage =
          reply.inputTokens === null && reply.outputTokens === null
            ? null
            : { input_tokens: reply.inputTokens, output_tokens: reply.outputTokens };
        const parts = { ...reply, messageId: reply.id, usage, model: model.name };
        return responseOf(
          parts,
          reply.status === "in_progress" ? null : outputText(reply.content, sources, titles, "links"),
        );
      },
      { params: ResponseIdParams, ...responseRoutesDoc.retrieve },
    )
    .delete(
      "/responses/:id",
      async ({ apiKey, params }) => {
        const reply = await replyOf(deps, apiKey, params.id, "response_id");
        if (reply.status === "in_progress")
          throw new ApiError(
            "reply_in_progress",
            "This response is still being generated: stop it or wait for it to end.",
            {
              param: "response_id",
            },
          );
        await deleteTurn(deps.db, ownerOf(apiKey), reply);
        return { id: responseIdOf(reply.id), object: "response" as const, deleted: true as const };
      },
      { params: ResponseIdParams, ...responseRoutesDoc.remove },
    );

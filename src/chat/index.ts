/** POST /chat: one reply as JSON, or streamed as Server-Sent Events. */
import { Elysia } from "elysia";
import { guard } from "../auth/index.ts";
import { jsonBody } from "../http/body.ts";
import { httpCore } from "../http/core.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import type { ChatDeps } from "./deps.ts";
import { bodyHash, IDEMPOTENCY_PARAMETER, inProgress } from "./idempotency.ts";
import { ChatReply, chatBody } from "./model.ts";
import { startReply } from "./reply.ts";

export type { ChatDeps } from "./deps.ts";
export { IDEMPOTENCY_PARAMETER } from "./idempotency.ts";
export { type ReplyRequest, type StartedReply, startReply } from "./reply.ts";

export const chatRoutes = (deps: ChatDeps) => {
  return new Elysia({ tags: ["Chat"] })
    .use(httpCore(deps.logger))
    .use(guard(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "/chat",
      async ({ body, apiKey, request }) => {
        const stream = body.stream === true;
        const { reply, replayed } = await startReply(deps, {
          key: apiKey,
          knowledgeBaseId: body.knowledge_base_id,
          message: body.message,
          conversationId: body.conversation_id,
          stream,
          idempotency: { key: request.headers.get("idempotency-key"), hash: () => bodyHash(body) },
          trace: deps.tracing?.of(request),
        });
        // A Response bypasses the JSON response schema; the events are documented below.
        if (stream) return deps.replies.stream(reply).response() as never;
        if (replayed && reply.status === "in_progress") throw inProgress();
        // The reply's events folded (its failure thrown): the run's here, or a replay's from the store.
        const r = await deps.replies.stream(reply).outcome();
        const { id, conversationId: conversation_id, content, sources, status, usage } = r;
        return { id, conversation_id, content, sources, status, created_at: reply.createdAt.toISOString(), usage };
      },
      {
        body: chatBody(deps.options.maxMessageChars),
        response: {
          200: ChatReply,
          413: ErrorBody,
          415: ErrorBody,
          ...ErrorResponses,
          502: ErrorBody,
          504: ErrorBody,
        },
        detail: routeDoc(
          "Send a message",
          "Sends a message to the agent. With `stream: false` (default) the reply comes as one JSON object; with `stream: true` as Server-Sent Events: `start`, `token`…, `sources`, `end` — or one `error` event.",
          {
            operationId: "chat",
            success: "ChatReply",
            events: "StreamEvent",
            body: "ChatRequest",
            parameters: [IDEMPOTENCY_PARAMETER],
          },
        ),
      },
    );
};
export { ChatReply, chatBody, StreamEvent } from "./model.ts";
export { startSweeper } from "./sweeper.ts";

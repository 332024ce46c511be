/** POST /chat: one reply as JSON, or streamed as Server-Sent Events. */
import { Elysia } from "elysia";
import { guard } from "../auth/index.ts";
import { usageOf } from "../conversations/model.ts";
import type { MessageRow } from "../db/schema.ts";
import { jsonBody } from "../http/body.ts";
import { httpCore } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import type { ChatDeps } from "./deps.ts";
import { bodyHash, IDEMPOTENCY_PARAMETER, idempotencyKeyOf } from "./idempotency.ts";
import { ChatReply, chatBody, messageProblem } from "./model.ts";
import { settledReply, startReply } from "./reply.ts";

export type { ChatDeps } from "./deps.ts";
export { IDEMPOTENCY_PARAMETER, idempotencyKeyOf } from "./idempotency.ts";
export { messageProblem } from "./model.ts";
export { type ReplyRequest, type StartedReply, settledReply, startReply } from "./reply.ts";

const asJson = (m: MessageRow) => ({
  id: m.id,
  conversation_id: m.conversationId,
  content: m.content,
  sources: m.sources,
  status: m.status === "stopped" || m.status === "length" ? m.status : ("completed" as const),
  created_at: m.createdAt.toISOString(),
  usage: usageOf(m),
});

export const chatRoutes = (deps: ChatDeps) => {
  return new Elysia({ tags: ["Chat"] })
    .use(httpCore(deps.logger))
    .use(guard(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "/chat",
      async ({ body, apiKey, request }) => {
        const problem = messageProblem(body.message);
        if (problem)
          throw new ApiError("invalid_request", `Invalid field 'message': ${problem}.`, { param: "message" });
        const idemKey = idempotencyKeyOf(request);
        const stream = body.stream === true;
        const started = await startReply(deps, {
          key: apiKey,
          knowledgeBaseId: body.knowledge_base_id,
          message: body.message,
          conversationId: body.conversation_id,
          stream,
          idempotency: idemKey ? { key: idemKey, hash: await bodyHash(body) } : undefined,
          trace: deps.tracing?.of(request),
        });
        const id = started.kind === "run" ? started.reply.id : started.message.id;
        // A Response bypasses the JSON response schema; the events are documented below.
        if (stream) return deps.replies.stream(id) as never;
        if (started.kind === "replay") return asJson(await settledReply(deps, started.message));
        const outcome = await started.reply.done;
        if (!outcome.ok) throw outcome.error;
        return asJson(outcome.message);
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

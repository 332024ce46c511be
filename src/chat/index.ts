/** POST /chat: one reply as JSON, or streamed as Server-Sent Events. */
import { Elysia } from "elysia";
import { admission } from "../auth/index.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import type { ChatDeps } from "./deps.ts";
import { IDEMPOTENCY_PARAMETER } from "./idempotency.ts";
import { ChatReply, chatBody } from "./model.ts";
import { answerChat } from "./reply.ts";

export type { ChatDeps } from "./deps.ts";
export { IDEMPOTENCY_PARAMETER } from "./idempotency.ts";
export { type ReplyRequest, type StartedReply, startReply } from "./reply.ts";

export const chatRoutes = (deps: ChatDeps) => {
  return new Elysia({ tags: ["Chat"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps, { visitors: true }))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post("/chat", answerChat(deps), {
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
        "Sends a message to the agent. With `stream: false` (default) the reply comes as one JSON object; with `stream: true` as Server-Sent Events: `start`, `token`… with `sources` among them (again each time the list grows, before the token citing what it adds: keep the last one), `end` — or one `error` event.",
        {
          operationId: "chat",
          success: "ChatReply",
          events: "StreamEvent",
          body: "ChatRequest",
          parameters: [IDEMPOTENCY_PARAMETER],
        },
      ),
    });
};
export { ChatReply, chatBody, StreamEvent } from "./model.ts";
export { startSweeper } from "./sweeper.ts";

/** POST /chat: one reply as JSON, or streamed as Server-Sent Events. */
import { Elysia } from "elysia";
import { type GuardDeps, guard } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { usageOf } from "../conversations/model.ts";
import type { MessageRow } from "../db/schema.ts";
import { jsonBody } from "../http/body.ts";
import { httpCore } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import type { Replies, ReplyHandle } from "../replies/index.ts";
import {
  bodyHash,
  type Claim,
  claim,
  forget,
  IDEMPOTENCY_PARAMETER,
  idempotencyKeyOf,
  inspect,
  linkReply,
  recordError,
} from "./idempotency.ts";
import { ChatReply, chatBody, messageProblem } from "./model.ts";
import { observeReply } from "./observe.ts";
import { prepareReply } from "./service.ts";

/** How long a stream retry waits for the first request (same Idempotency-Key) to start its reply. */
const PENDING_WAIT_MS = 5_000;

/** The chat route's dependencies: the guard's, and the replies. */
export interface ChatDeps extends GuardDeps {
  logger: Logger;
  replies: Replies;
}

const asJson = (m: MessageRow) => ({
  id: m.id,
  conversation_id: m.conversationId,
  content: m.content,
  status: m.status === "stopped" || m.status === "length" ? m.status : ("completed" as const),
  created_at: m.createdAt.toISOString(),
  usage: usageOf(m),
});

export const chatRoutes = (deps: ChatDeps) => {
  const inProgress = () =>
    new ApiError(
      "idempotency_in_progress",
      "A request with this Idempotency-Key is still being processed; retry later.",
      {
        headers: { "retry-after": "1" },
      },
    );

  /** A retry with the same Idempotency-Key and body: the first request's outcome, nothing new. */
  async function replay(
    found: Exclude<Claim, { kind: "first" }>,
    keyId: string,
    stream: boolean,
    idemKey: string,
    hash: string,
  ) {
    // A stream retry waits (briefly) for the first request to start its reply, then follows it.
    for (let waited = 0; found.kind === "pending" && stream && waited < PENDING_WAIT_MS; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      found = await inspect(deps.db, keyId, idemKey, hash);
    }
    if (found.kind === "pending") throw inProgress();
    if (found.kind === "reused") {
      throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used with a different request body.", {
        param: "Idempotency-Key",
      });
    }
    if (found.kind === "error") {
      throw new ApiError(found.error.code, found.error.message, found.error.param ? { param: found.error.param } : {});
    }
    const message = await deps.replies.find(keyId, found.messageId);
    if (!message)
      throw new ApiError("not_found", "The reply of this Idempotency-Key's request was deleted with its conversation.");
    if (stream) return deps.replies.stream(message.id) as never;
    if (message.status === "in_progress") throw inProgress();
    if (message.status === "failed") {
      const event = (await deps.replies.terminal(message.id))?.event;
      if (event?.type === "error") throw new ApiError(event.error.code, event.error.message);
      throw new ApiError("generation_failed", "The agent failed while generating the reply.");
    }
    return asJson(message);
  }

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
        if (idemKey) {
          const hash = await bodyHash(body);
          const found = await claim(deps.db, apiKey.id, idemKey, hash, deps.now());
          if (found.kind !== "first") return replay(found, apiKey.id, body.stream === true, idemKey, hash);
        }
        let reply: ReplyHandle;
        const startedAt = performance.now();
        try {
          const at = new Date(deps.now());
          const prepared = await prepareReply(
            deps.db,
            apiKey,
            body.message,
            body.conversation_id,
            at,
            body.knowledge_base_id,
          );
          reply = await deps.replies.start({
            conversationId: prepared.conversation.id,
            history: prepared.history,
            message: body.message,
            knowledgeBaseId: prepared.knowledgeBaseId,
            at,
            also: [...prepared.writes, ...(idemKey ? [linkReply(apiKey.id, idemKey)] : [])],
          });
        } catch (error) {
          // Retries of a request that never started a reply: the same client error, or a fresh try after a server fault.
          if (idemKey && error instanceof ApiError && error.status < 500)
            await recordError(deps.db, apiKey.id, idemKey, error);
          else if (idemKey) await forget(deps.db, apiKey.id, idemKey).catch(() => {});
          throw error;
        }
        if (deps.metrics) observeReply(deps.replies.feed(reply.id), reply.done, deps.metrics, startedAt);
        // A Response bypasses the JSON response schema; the events are documented below.
        if (body.stream) return deps.replies.stream(reply.id) as never;
        const outcome = await reply.done;
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

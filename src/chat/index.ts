/** POST /chat: one reply as JSON, or streamed as Server-Sent Events. */
import { Elysia } from "elysia";
import { type GuardDeps, guard } from "../auth/index.ts";
import type { ErrorPayload } from "../contract/errors.ts";
import { usageOf } from "../conversations/model.ts";
import type { MessageRow } from "../db/schema.ts";
import { jsonBody } from "../http/body.ts";
import { httpCore } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { replyStream } from "../runs/feed.ts";
import { Run, type RunDeps, type RunRegistry } from "../runs/run.ts";
import { findReplyOfKey, lastEvent } from "../runs/store.ts";
import { bodyHash, type Claim, claim, forget, idempotencyKeyOf, inspect, recordError } from "./idempotency.ts";
import { ChatMessage, chatBody, messageProblem, StreamEvent } from "./model.ts";
import { observeRun } from "./observe.ts";
import { beginTurn } from "./service.ts";

/** How long a stream retry waits for the first request (same Idempotency-Key) to start its reply. */
const PENDING_WAIT_MS = 5_000;

/** The chat route's dependencies: the guard's and the run's, plus the registry of live runs. */
export interface ChatDeps extends GuardDeps, RunDeps {
  runs: RunRegistry;
}

const asJson = (m: MessageRow) => ({
  id: m.id,
  conversation_id: m.conversationId,
  content: m.content,
  status: m.status === "stopped" ? ("stopped" as const) : ("completed" as const),
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
    const message = await findReplyOfKey(deps.db, keyId, found.messageId);
    if (!message)
      throw new ApiError("not_found", "The reply of this Idempotency-Key's request was deleted with its conversation.");
    if (stream) return replyStream(deps, message.id, 0, deps.options.keepAliveMs) as never;
    if (message.status === "in_progress") throw inProgress();
    if (message.status === "failed") {
      const last = await lastEvent(deps.db, message.id);
      const event = last ? (JSON.parse(last.data) as { type: string; error?: ErrorPayload }) : null;
      if (event?.type === "error" && event.error) throw new ApiError(event.error.code, event.error.message);
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
        let run: Run;
        const startedAt = performance.now();
        try {
          const at = new Date(deps.now());
          const turn = await beginTurn(deps.db, apiKey.id, body.message, body.conversation_id, at);
          const idempotency = idemKey ? { keyId: apiKey.id, idemKey } : undefined;
          run = deps.runs.track(
            await Run.start(deps, {
              conversationId: turn.conversation.id,
              history: turn.history,
              message: body.message,
              at,
              idempotency,
            }),
          );
        } catch (error) {
          // Retries of a request that never started a reply: the same client error, or a fresh try after a server fault.
          if (idemKey && error instanceof ApiError && error.status < 500)
            await recordError(deps.db, apiKey.id, idemKey, error);
          else if (idemKey) await forget(deps.db, apiKey.id, idemKey).catch(() => {});
          throw error;
        }
        if (deps.metrics) observeRun(run, deps.metrics, startedAt);
        // A Response bypasses the JSON response schema; the events are documented below.
        if (body.stream) return replyStream(deps, run.id, 0, deps.options.keepAliveMs) as never;
        const outcome = await run.done;
        if (!outcome.ok) throw outcome.error;
        return asJson(outcome.message);
      },
      {
        body: chatBody(deps.options.maxMessageChars),
        response: {
          200: ChatMessage,
          413: ErrorBody,
          415: ErrorBody,
          ...ErrorResponses,
          502: ErrorBody,
          504: ErrorBody,
        },
        detail: {
          summary: "Send a message",
          description:
            "Sends a message to the agent. With `stream: false` (default) the reply comes as one JSON object; with `stream: true` as Server-Sent Events: `start`, `token`…, `sources`, `end` — or one `error` event.",
          responses: {
            200: {
              description: "The reply (JSON), or its event stream (text/event-stream).",
              content: {
                "application/json": { schema: ChatMessage },
                "text/event-stream": { schema: StreamEvent },
              },
            },
          } as never,
        },
      },
    );
};

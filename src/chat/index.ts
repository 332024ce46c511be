/** POST /chat: one reply as JSON, or streamed as Server-Sent Events. */
import { Elysia } from "elysia";
import { guard, type GuardDeps } from "../auth/index.ts";
import { ApiError } from "../http/errors.ts";
import { httpCore, jsonBody } from "../http/index.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { sseResponse } from "../http/sse.ts";
import { ChatMessage, chatBody, messageProblem, StreamEvent, usageOf } from "./model.ts";
import { Run, type RunDeps, type RunEvent, type RunRegistry } from "./run.ts";
import { beginTurn } from "./service.ts";

/** The chat route's dependencies: the guard's and the run's, plus the registry of live runs. */
export interface ChatDeps extends GuardDeps, RunDeps {
  runs: RunRegistry;
}

export const chatRoutes = (deps: ChatDeps) =>
  new Elysia({ tags: ["Chat"] })
    .use(httpCore(deps.logger))
    .use(guard(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "/chat",
      async ({ body, apiKey }) => {
        const problem = messageProblem(body.message);
        if (problem) throw new ApiError("invalid_request", `Invalid field 'message': ${problem}.`, { param: "message" });
        const turn = await beginTurn(deps.db, apiKey.id, body.message, body.conversation_id, new Date(deps.now()));
        const run = deps.runs.track(new Run(deps, turn.conversation.id, turn.history, body.message));
        if (body.stream) {
          // A Response bypasses the JSON response schema; the events are documented below.
          return sseResponse<RunEvent>(run, {
            keepAliveMs: deps.options.keepAliveMs,
            isLast: (e) => e.type === "end" || e.type === "error",
          }) as never;
        }
        const outcome = await run.done;
        if (!outcome.ok) throw outcome.error;
        return {
          id: outcome.message.id,
          conversation_id: outcome.message.conversationId,
          content: outcome.message.content,
          created_at: outcome.message.createdAt.toISOString(),
          usage: usageOf(outcome.message),
        };
      },
      {
        body: chatBody(deps.options.maxMessageChars),
        response: { 200: ChatMessage, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses, 502: ErrorBody, 504: ErrorBody },
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

/** What a run answers and how it ended: the input, the outcome, and why generation stopped early. */
import type { ChatTurn, GenerationSettings } from "../agent/index.ts";
import { describeError, type Logger } from "../config/logger.ts";
import type { Certainty } from "../contract/analytics.ts";
import type { ReplyStatus, Usage } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";
import type { Trace } from "../tracing/index.ts";
import type { ReplyWrite } from "./statements.ts";

/** What a run answers. `at` is when the user message was stored: the reply sorts after it. */
export interface RunInput {
  conversationId: string;
  history: ChatTurn[];
  message: string;
  /** The conversation's knowledge base (AgentInput.knowledgeBaseId): the only one the agent searches and cites. */
  knowledgeBaseId: string | null;
  at: Date;
  /** Writes of other folders to run in the statement that creates the reply (e.g. the Idempotency-Key record). */
  also?: ReplyWrite[];
  /** The client's settings for the model (not stored: they concern this reply only). */
  settings?: GenerationSettings;
  /** Where the reply's spans go (the request's trace); none: not traced. */
  trace?: Trace;
}

/** How a run ended: stored with its final status and the usage the model reported, or failed with its error. */
export type RunOutcome =
  | { ok: true; status: ReplyStatus; usage: Usage | null; certainty: Certainty }
  | { ok: false; error: ApiError };

/** The abort reason of a stop asked for by a client (POST …/stop), as opposed to a failure. */
export class StopRequest {}

/** Failures a model agent reports itself (and has logged): passed to the client as they are. */
const UPSTREAM = new Set(["upstream_error", "upstream_timeout"]);

/** Why generation ended early (`reason`: the run's abort reason): stopped on request, or the failure to report. */
export function whyEnded(
  error: unknown,
  reason: unknown,
  at: { logger: Logger; id: string; conversationId: string },
): ApiError | "stopped" {
  if (reason instanceof StopRequest) {
    at.logger.info({ message_id: at.id }, "generation stopped on request");
    return "stopped";
  }
  if (reason instanceof ApiError) {
    // Cut off on purpose (shutdown, a lost lease): expected, no stack.
    const fields = { conversation_id: at.conversationId, code: reason.code, reason: reason.message };
    at.logger.warn(fields, "generation cut off");
    return reason;
  }
  if (error instanceof ApiError && UPSTREAM.has(error.code)) return error; // the model agent logged it once
  at.logger.error({ conversation_id: at.conversationId, error: describeError(error) }, "generation failed");
  return new ApiError("generation_failed", "The agent failed while generating the reply.", { cause: error });
}

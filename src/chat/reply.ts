/**
 * The one way a chat reply starts, whichever door the question came through (POST /v1/chat,
 * POST /v1/chat/completions, the MCP `ask` tool): Idempotency-Key claim or replay, the turn
 * (conversation, history, and the writes that go with the reply's statement), then the run.
 * The doors only translate the wire form.
 */
import type { ChatTurn, GenerationSettings } from "../agent/types.ts";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { MessageRow } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import type { ReplyHandle } from "../replies/index.ts";
import type { Trace } from "../tracing/index.ts";
import type { ChatDeps } from "./deps.ts";
import { type Claim, claim, forget, inspect, linkReply, recordError } from "./idempotency.ts";
import { observeReply } from "./observe.ts";
import { prepareReply } from "./service.ts";

/** How long a stream retry waits for the first request (same Idempotency-Key) to start its reply. */
const PENDING_WAIT_MS = 5_000;

export interface ReplyRequest {
  /** The caller's key: its conversations, and the knowledge bases it may use. */
  key: ApiKeyInfo;
  /** A new conversation's knowledge base, by id or name (the key's default when omitted). */
  knowledgeBaseId?: string;
  message: string;
  conversationId?: string | null;
  /** For a new conversation: the turns the client already had (stored before the message). */
  history?: ChatTurn[];
  settings?: GenerationSettings;
  /** Whether the caller streams (a stream retry follows a reply still running). */
  stream: boolean;
  /** The request's trace: the reply's spans go under it (tracing/). */
  trace?: Trace;
  /** The Idempotency-Key and the hash of what decides the reply. */
  idempotency?: { key: string; hash: string };
}

/** A new run, or — a retry with the same Idempotency-Key — the first request's stored reply. */
export type StartedReply =
  | {
      kind: "run";
      reply: ReplyHandle;
      conversationId: string;
      /** The knowledge base the reply searches and cites (a continued conversation keeps its own). */
      knowledgeBaseId: string | null;
    }
  | { kind: "replay"; message: MessageRow };

const inProgress = () =>
  new ApiError(
    "idempotency_in_progress",
    "A request with this Idempotency-Key is still being processed; retry later.",
    {
      headers: { "retry-after": "1" },
    },
  );

export async function startReply(deps: ChatDeps, req: ReplyRequest): Promise<StartedReply> {
  const idem = req.idempotency;
  if (idem) {
    const found = await claim(deps.db, req.key.id, idem.key, idem.hash, deps.now());
    if (found.kind !== "first") return { kind: "replay", message: await replayed(deps, req, found) };
  }
  const startedAt = performance.now();
  try {
    const at = new Date(deps.now());
    const prepared = await prepareReply(
      deps.db,
      req.key,
      req.message,
      req.conversationId,
      at,
      req.knowledgeBaseId,
      req.history,
    );
    const reply = await deps.replies.start({
      conversationId: prepared.conversation.id,
      history: prepared.history,
      message: req.message,
      knowledgeBaseId: prepared.knowledgeBaseId,
      at,
      also: [...prepared.writes, ...(idem ? [linkReply(req.key.id, idem.key)] : [])],
      settings: req.settings,
      trace: req.trace,
    });
    // Every door (chat, Chat Completions, MCP) starts here, so the reply metrics are taken once, here.
    if (deps.metrics) observeReply(deps.replies.feed(reply.id), reply.done, deps.metrics, startedAt);
    return {
      kind: "run",
      reply,
      conversationId: prepared.conversation.id,
      knowledgeBaseId: prepared.knowledgeBaseId,
    };
  } catch (error) {
    // Retries of a request that never started a reply: the same client error, or a fresh try after a server fault.
    if (idem && error instanceof ApiError && error.status < 500)
      await recordError(deps.db, req.key.id, idem.key, error);
    else if (idem) await forget(deps.db, req.key.id, idem.key).catch(() => {});
    throw error;
  }
}

/** The first request's reply, for a retry with the same Idempotency-Key and body. */
async function replayed(deps: ChatDeps, req: ReplyRequest, found: Exclude<Claim, { kind: "first" }>) {
  const { key, hash } = req.idempotency!;
  // A stream retry waits (briefly) for the first request to start its reply, then follows it.
  for (let waited = 0; found.kind === "pending" && req.stream && waited < PENDING_WAIT_MS; waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
    found = await inspect(deps.db, req.key.id, key, hash);
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
  const message = await deps.replies.find(req.key.id, found.messageId);
  if (!message)
    throw new ApiError("not_found", "The reply of this Idempotency-Key's request was deleted with its conversation.");
  return message;
}

/**
 * A replayed reply as a JSON answer can give it: the stored message once it has ended well; its
 * error when it failed; 409 while it is still being generated (a stream follows it instead).
 */
export async function settledReply(deps: ChatDeps, message: MessageRow): Promise<MessageRow> {
  if (message.status === "in_progress") throw inProgress();
  if (message.status === "failed") {
    const event = (await deps.replies.terminal(message.id))?.event;
    if (event?.type === "error") throw new ApiError(event.error.code, event.error.message);
    throw new ApiError("generation_failed", "The agent failed while generating the reply.");
  }
  return message;
}

/**
 * The one way a chat reply starts, whichever door the question came through (POST /v1/chat,
 * POST /v1/chat/completions, the MCP `ask` tool): the message's validation, the Idempotency-Key
 * claim or replay, the turn (conversation, history, and the writes that go with the reply's
 * statement), then the run. The doors only translate the wire form: each answers from
 * `replies.stream(started.reply)`.
 */
import type { ChatTurn, GenerationSettings } from "../agent/types.ts";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { MessageRow } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import type { Trace } from "../tracing/index.ts";
import type { ChatDeps } from "./deps.ts";
import { type Claim, claim, forget, idempotencyKeyOf, inspect, linkReply, recordError } from "./idempotency.ts";
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
  /** How the door names the message in a refusal: its `param`, and its name in the text (chat's by default). */
  field?: { param: string; name: string };
  conversationId?: string | null;
  /** For a new conversation: the turns the client already had (stored before the message). */
  history?: ChatTurn[];
  settings?: GenerationSettings;
  /** Whether the caller streams (a stream retry follows a reply still running). */
  stream: boolean;
  /** The request's trace: the reply's spans go under it (tracing/). */
  trace?: Trace;
  /** The request's Idempotency-Key header (checked here, when present) and the hash of what decides the reply. */
  idempotency?: { key: string | null; hash: () => Promise<string> };
}

/** A new run, or — a retry with the same Idempotency-Key — the first request's stored reply. */
export interface StartedReply {
  /** The run's reply, or the stored one a retry replays (with its status: an ended one is read from the store). */
  reply: Pick<MessageRow, "id" | "conversationId" | "createdAt"> & Partial<Pick<MessageRow, "status">>;
  replayed: boolean;
  /** The knowledge base the run searches and cites (a continued conversation keeps its own); null for a replay. */
  knowledgeBaseId: string | null;
}

// White space and the invisible format characters (zero-width space, joiners, BOM).
const BLANK = /^[\s\u200B-\u200D\u2060\uFEFF]*$/u;

/** What is wrong with a message its door's schema accepted, if anything. */
function messageProblem(message: string): string | null {
  if (BLANK.test(message)) return "it must contain more than white space";
  // PostgreSQL text cannot store U+0000; say so instead of failing at the insert.
  if (message.includes("\0")) return "it must not contain NUL (U+0000) characters";
  // A lone surrogate would be stored as U+FFFD: refuse rather than store something else.
  if (!message.isWellFormed()) return "it must be well-formed Unicode (no lone surrogates)";
  return null;
}

/** A retry (same Idempotency-Key) whose first request is still being generated, answered as JSON: retry later. */
export const inProgress = () =>
  new ApiError(
    "idempotency_in_progress",
    "A request with this Idempotency-Key is still being processed; retry later.",
    {
      headers: { "retry-after": "1" },
    },
  );

export async function startReply(deps: ChatDeps, req: ReplyRequest): Promise<StartedReply> {
  const problem = messageProblem(req.message);
  if (problem) {
    const { param, name } = req.field ?? { param: "message", name: "field 'message'" };
    throw new ApiError("invalid_request", `Invalid ${name}: ${problem}.`, { param });
  }
  const idemKey = req.idempotency?.key == null ? null : idempotencyKeyOf(req.idempotency.key);
  const idem = idemKey === null ? undefined : { key: idemKey, hash: await req.idempotency!.hash() };
  if (idem) {
    const found = await claim(deps.db, req.key.id, idem.key, idem.hash, deps.now());
    if (found.kind !== "first")
      return { reply: await replayed(deps, req, idem, found), replayed: true, knowledgeBaseId: null };
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
    if (deps.metrics) observeReply(deps.replies.stream(reply), reply.done, deps.metrics, startedAt);
    return { reply, replayed: false, knowledgeBaseId: prepared.knowledgeBaseId };
  } catch (error) {
    // Retries of a request that never started a reply: the same client error, or a fresh try after a server fault.
    if (idem && error instanceof ApiError && error.status < 500)
      await recordError(deps.db, req.key.id, idem.key, error);
    else if (idem) await forget(deps.db, req.key.id, idem.key).catch(() => {});
    throw error;
  }
}

/** The first request's reply, for a retry with the same Idempotency-Key and body. */
async function replayed(
  deps: ChatDeps,
  req: ReplyRequest,
  { key, hash }: { key: string; hash: string },
  found: Exclude<Claim, { kind: "first" }>,
) {
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

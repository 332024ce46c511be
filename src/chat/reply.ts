/**
 * The one way a chat reply starts, whichever door the question came through (POST /v1/chat,
 * POST /v1/chat/completions, the MCP `ask` tool): the message's validation, the Idempotency-Key
 * claim or replay (idempotency.ts), the turn — the conversation found or made, its history, and
 * the writes that go with the reply's statement (the conversation and the user message are
 * written by the statement that creates the reply) — then the run. The doors only translate the
 * wire form: each answers from `replies.stream(started.reply)`.
 */
import type { ChatTurn, GenerationSettings } from "../agent/index.ts";
import type { ApiKeyInfo } from "../auth/index.ts";
import {
  findConversation,
  insertConversation,
  insertEarlierTurns,
  insertUserMessage,
  MESSAGES_CAP,
  pageMessages,
  titleFrom,
} from "../conversations/index.ts";
import type { Db } from "../db/client.ts";
import { ownerOf } from "../db/owner.ts";
import type { ConversationRow, MessageRow } from "../db/schema.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { defaultKnowledgeBaseFor, mayUse, resolveKnowledgeBase } from "../knowledge/index.ts";
import { isId, newId } from "../primitives.ts";
import type { ReplyWrite } from "../replies/index.ts";
import type { Trace } from "../tracing/index.ts";
import type { ChatDeps } from "./deps.ts";
import {
  bodyHash,
  claimOrReplay,
  forget,
  idempotencyKeyOf,
  inProgress,
  linkReply,
  recordError,
} from "./idempotency.ts";
import type { chatBody } from "./model.ts";
import { observeReply } from "./observe.ts";

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

/**
 * POST /chat's answer (the route and its schemas are declared in index.ts): the reply streamed
 * as SSE, or its events folded into one JSON reply — the run's here, or a replay's from the store.
 */
export const answerChat =
  (deps: ChatDeps) =>
  async ({
    body,
    apiKey,
    request,
  }: {
    body: ReturnType<typeof chatBody>["static"];
    apiKey: ApiKeyInfo;
    request: Request;
  }) => {
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
    // A Response bypasses the JSON response schema; the events are documented on the route.
    if (stream) return deps.replies.stream(reply).response() as never;
    if (replayed && reply.status === "in_progress") throw inProgress();
    const {
      id,
      conversationId: conversation_id,
      content,
      sources,
      status,
      usage,
      certainty,
    } = await deps.replies.stream(reply).outcome();
    const created_at = reply.createdAt.toISOString();
    return { id, conversation_id, content, sources, status, created_at, usage, certainty };
  };

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

export async function startReply(deps: ChatDeps, req: ReplyRequest): Promise<StartedReply> {
  const problem = messageProblem(req.message);
  if (problem) {
    const { param, name } = req.field ?? { param: "message", name: "field 'message'" };
    throw new ApiError("invalid_request", `Invalid ${name}: ${problem}.`, { param });
  }
  const owner = ownerOf(req.key);
  // A public key's visitors share its key id: each visitor's Idempotency-Keys are its own.
  const given = req.idempotency?.key == null ? null : idempotencyKeyOf(req.idempotency.key);
  const idemKey = given !== null && owner.visitorId ? `visitor:${owner.visitorId}:${given}` : given;
  const idem = idemKey === null ? undefined : { key: idemKey, hash: await req.idempotency!.hash() };
  const replay = idem ? await claimOrReplay(deps, owner, idem, req.stream) : null;
  if (replay) return { reply: replay, replayed: true, knowledgeBaseId: null };
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

/**
 * Where the reply to a new message goes, the turns the agent should know of, and the turn's own
 * writes (the conversation when it is new, the user message), which run in the statement that
 * creates the reply.
 */
interface PreparedReply {
  conversation: ConversationRow;
  history: ChatTurn[];
  writes: ReplyWrite[];
  /** What the reply may search and cite: the conversation's knowledge base, if the key may still use it. */
  knowledgeBaseId: string | null;
}

const conversationNotFound = (id: string) => notFound("conversation", id, "conversation_id");

/**
 * Finds the conversation (or makes a new one) and reads its history: what a reply needs before
 * its run. A new conversation takes `knowledgeBaseId` (which the key must be allowed: else 404,
 * as for an unknown id) or the key's default; an existing one keeps its own, and naming another
 * is a 400. A new conversation may bring `earlier` turns (a client that keeps its own history,
 * such as a Chat Completions `messages` array): stored before the message, and the agent's history.
 */
async function prepareReply(
  db: Db,
  key: Pick<ApiKeyInfo, "id" | "role" | "knowledgeBaseIds" | "visitor">,
  message: string,
  conversationId: string | null | undefined,
  at: Date,
  knowledgeBaseId?: string,
  /** A new conversation's earlier turns, as the client had them; ignored when continuing one. */
  earlier: ChatTurn[] = [],
): Promise<PreparedReply> {
  const keyId = key.id;
  const named = knowledgeBaseId === undefined ? undefined : (await resolveKnowledgeBase(db, key, knowledgeBaseId)).id;
  if (conversationId == null) {
    const kbId = named ?? (await defaultKnowledgeBaseFor(db, key));
    const title = titleFrom(earlier.find((t) => t.role === "user")?.content ?? message);
    const visitorId = key.visitor?.id ?? null;
    const conversation = { id: newId("conv"), keyId, visitorId, kbId, title, createdAt: at, updatedAt: at };
    // The message's id is made after the conversation's: (created_at, id) orders the turn.
    return {
      conversation,
      history: earlier,
      writes: [
        insertConversation(conversation),
        ...(earlier.length ? [insertEarlierTurns(conversation.id, earlier, at)] : []),
        insertUserMessage(conversation.id, message, at),
      ],
      knowledgeBaseId: kbId,
    };
  }
  const conversation = isId("conv", conversationId) ? await findConversation(db, ownerOf(key), conversationId) : null;
  if (!conversation) throw conversationNotFound(conversationId);
  if (named !== undefined && named !== conversation.kbId) {
    throw new ApiError(
      "invalid_request",
      "A conversation keeps the knowledge base it started with; start a new conversation for another one.",
      { param: "knowledge_base_id" },
    );
  }
  // A key whose grant was withdrawn since gets no passages from it (nothing is cited).
  const kbId = conversation.kbId && mayUse(key, conversation.kbId) ? conversation.kbId : null;
  // The agent sees the most recent messages only, like a read of the conversation: a turn's
  // cost must not grow with the conversation's length.
  const history: ChatTurn[] = (await pageMessages(db, conversation.id, MESSAGES_CAP, null)).rows
    // A stopped reply is what the user chose to keep, a cut one (length) what they got; failed
    // and running ones are not history.
    .filter((m) => m.status === "completed" || m.status === "stopped" || m.status === "length")
    .map((m) => ({ role: m.role, content: m.content }));
  // The reply statement moves the conversation's updated_at (touchConversation): not this write.
  return { conversation, history, writes: [insertUserMessage(conversation.id, message, at)], knowledgeBaseId: kbId };
}

/**
 * The one seam between HTTP and whatever produces replies. HTTP code never knows which agent
 * runs; a model-backed agent implements the same interface.
 */

import type { Trace } from "../tracing/index.ts";

/** A turn of the conversation so far, oldest first. */
export interface ChatTurn {
  role: "user" | "assistant";
  content: string;
}

/**
 * Settings a client may pass for one reply (the Chat Completions door). A model agent hands them
 * to the model; the retrieval agent has no use for them and ignores them.
 */
export interface GenerationSettings {
  /** Added to the system prompt (OpenAI `system`/`developer` messages). */
  instructions?: string;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

/** What the agent is asked. `signal` aborts generation (shutdown, cancel). */
export interface AgentInput {
  history: ChatTurn[];
  message: string;
  /**
   * The knowledge base the conversation answers from: search and cite only its documents.
   * Null when there is none (the key may use no knowledge base, or it was deleted).
   */
  knowledgeBaseId: string | null;
  signal: AbortSignal;
  settings?: GenerationSettings;
  /** The reply's span: an agent's spans (search, model call) go under it. Absent: not traced. */
  trace?: Trace;
}

/** Token counts a model provider reported for one reply (the contract's wire form). */
export type { Usage } from "../contract/events.ts";

import type { Certainty } from "../contract/analytics.ts";
import type { Usage } from "../contract/events.ts";

/**
 * A piece of the reply: text tokens in order, (once) the source URLs used, and optionally (once,
 * before `sources`) the token usage a model provider reported.
 */
export type AgentChunk =
  | { type: "token"; content: string }
  | { type: "sources"; sources: string[] }
  | { type: "usage"; usage: Usage }
  /** The agent ended the reply at a local limit (agent/cap.ts): stored as status `length`. */
  | { type: "finish"; reason: "length" }
  /**
   * How sure the answer is (contract/analytics.ts), at any point; the last one counts. An agent
   * that never says gets `answered` when it cited a source, else `no_sources`.
   */
  | { type: "certainty"; certainty: Certainty };

/** Produces a reply as a stream of chunks; throwing fails the generation. */
export interface Agent {
  respond(input: AgentInput): AsyncIterable<AgentChunk>;
}

/** The SSE events of a reply (POST /v1/chat with stream, GET …/events), in wire form. */
import type { Certainty } from "./analytics.ts";
import type { ErrorPayload } from "./errors.ts";

/** Token counts a model provider reported for one reply (null: that count was not reported). */
export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
}

/** A stored message's status: an assistant reply is `in_progress` while generated. */
export const MESSAGE_STATUSES = ["in_progress", "completed", "failed", "stopped", "length"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * How a reply that was answered ended: `stopped` when POST …/stop ended it early, `length` when
 * it reached the reply's local limit (tokens or bytes, docs/api.md).
 */
export const REPLY_STATUSES = ["completed", "stopped", "length"] as const;
export type ReplyStatus = (typeof REPLY_STATUSES)[number];

/**
 * The events of a reply, in order: start, then tokens with `sources` among them, then end — or
 * error at any point after start. `sources` comes again each time the list grows, each time the
 * whole list so far (`[k]` is `sources[k-1]`; an entry never changes), before the first token
 * that cites a source it adds; the last one is the reply's sources. A completed reply has at
 * least one, after its last citation; a client that keeps the last `sources` it saw is right.
 * `start`'s `resume_token` is accepted as `?token=` on this reply's events route instead of the
 * Authorization header, for an hour from the reply's start (an EventSource cannot send headers);
 * absent only from replies stored before resume tokens existed.
 */
export type StreamEvent =
  | { type: "start"; conversation_id: string; message_id: string; resume_token?: string }
  | { type: "token"; content: string }
  | { type: "sources"; sources: string[] }
  | { type: "end"; message_id: string; status: ReplyStatus; usage: Usage | null; certainty?: Certainty }
  | { type: "error"; error: Omit<ErrorPayload, "param"> };

/**
 * A generation run: drives the agent and owns the reply's events. The reply exists in the
 * database from the run's first moment (`in_progress`, with its `start` event); its events and
 * content reach the store in batches (every `replyFlushMs`, never a write per token), each batch
 * renewing the reply's lease; the last statement stores the terminal event and the final status.
 * The run does not depend on any HTTP connection: a response only subscribes.
 */
import type { Agent, AgentChunk, ChatTurn, Usage } from "../agent/types.ts";
import { describeError, type Logger } from "../config/logger.ts";
import type { ParleyOptions } from "../config/options.ts";
import type { StreamEvent } from "../contract/events.ts";
import type { Db } from "../db/client.ts";
import { sqlState } from "../db/errors.ts";
import type { MessageRow } from "../db/schema.ts";
import { toApiError } from "../http/error-handler.ts";
import { ApiError } from "../http/errors.ts";
import { newId } from "../ids.ts";
import { type LeaseKeeper, leaseKeeperFor } from "./lease.ts";
import { type Notifier, notifierFor } from "./notify.ts";
import { createReply, finishReply, flushReply, replyStatus, type StoredEvent } from "./store.ts";

/** The SSE events of a reply, as the contract defines them (contract/events.ts). */
export type RunEvent = StreamEvent;

/** An event with its sequence number within the reply (the SSE `id:`; `start` is 1). */
export interface Sequenced {
  seq: number;
  event: RunEvent;
}

/** Anything a response can follow: the events after `after`, then live ones, up to the terminal event. */
export interface ReplyFeed {
  subscribe(listener: (e: Sequenced) => void, after?: number): () => void;
}

export const isTerminal = (e: RunEvent) => e.type === "end" || e.type === "error";

/** How a run ended: the stored assistant message (completed or stopped), or the error it failed with. */
export type RunOutcome = { ok: true; message: MessageRow } | { ok: false; error: ApiError };

/** What a run needs: where to store, who answers, where to log, what time it is, how often to flush. */
export interface RunDeps {
  db: Db;
  agent: Agent;
  logger: Logger;
  now: () => number;
  options: ParleyOptions;
}

/** What a run answers. `at` is when the user message was stored: the reply sorts after it. */
export interface RunInput {
  conversationId: string;
  history: ChatTurn[];
  message: string;
  at: Date;
  /** The Idempotency-Key record to point at this reply, in the statement that creates it. */
  idempotency?: { keyId: string; idemKey: string };
}

/** Failures a model agent reports itself (and has logged): passed to the client as they are. */
const UPSTREAM = new Set(["upstream_error", "upstream_timeout"]);

/** A reported token count as the database can hold it (int4), or null. */
const count = (n: unknown): number | null =>
  Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= 2_147_483_647 ? (n as number) : null;

/**
 * Agent output as the database can hold it and as it is streamed: a string, without NUL
 * (PostgreSQL text rejects it) and without lone surrogates (stored as U+FFFD otherwise), so
 * the streamed tokens always concatenate to exactly the stored reply.
 */
const storable = (v: unknown): string =>
  String(v ?? "")
    .toWellFormed()
    .replaceAll("\0", "\uFFFD");

/** The abort reason of a stop asked for by a client (POST …/stop), as opposed to a failure. */
class StopRequest {}

/** Flush at once when this many events wait, whatever the interval. */
const BATCH_EVENTS = 256;

export class Run {
  readonly events: Sequenced[] = [];
  readonly done: Promise<RunOutcome>;
  private readonly listeners = new Map<(e: Sequenced) => void, number>();
  private readonly abort = new AbortController();
  private readonly notifier: Notifier;
  private seq = 0;
  private pending: StoredEvent[] = [];
  private delta = "";
  private storedSeq = 1;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly leases: LeaseKeeper;
  private writing: Promise<void> = Promise.resolve();
  private flushQueued = false;
  private readonly unsubscribeStop: () => void;

  /** Stores the reply as `in_progress` with its `start` event, then generates it. */
  static async start(deps: RunDeps, input: RunInput): Promise<Run> {
    const id = newId("msg");
    const createdAt = Math.max(deps.now(), input.at.getTime() + 1);
    const start: RunEvent = { type: "start", conversation_id: input.conversationId, message_id: id };
    try {
      await createReply(deps.db, {
        id,
        conversationId: input.conversationId,
        createdAt,
        leaseUntil: deps.now() + deps.options.replyLeaseMs,
        start: JSON.stringify(start),
        idempotency: input.idempotency,
      });
    } catch (error) {
      // foreign_key_violation: a DELETE of the conversation won the race since the turn began.
      if (sqlState(error) === "23503")
        throw new ApiError("not_found", "The conversation was deleted.", { param: "conversation_id" });
      throw error;
    }
    return new Run(deps, id, new Date(createdAt), input, start);
  }

  private constructor(
    private readonly deps: RunDeps,
    readonly id: string,
    readonly createdAt: Date,
    input: RunInput,
    start: RunEvent,
  ) {
    this.conversationId = input.conversationId;
    this.notifier = notifierFor(deps.db);
    this.events.push({ seq: ++this.seq, event: start });
    this.unsubscribeStop = this.notifier.on(`s:${id}`, () => this.stop());
    // Renews the lease while the agent is silent (a model thinking before its first token).
    this.leases = leaseKeeperFor(deps, { ...deps, leaseMs: deps.options.replyLeaseMs });
    this.leases.add(this);
    this.done = this.execute(input.history, input.message);
  }

  readonly conversationId: string;

  /**
   * Replays the events after `after`, then forwards new ones until unsubscribed. The terminal
   * event always reaches the listener, whatever `after` says (a client cannot wait past the end).
   */
  subscribe(listener: (e: Sequenced) => void, after = 0): () => void {
    for (const e of this.events) if (e.seq > after || isTerminal(e.event)) listener(e);
    this.listeners.set(listener, after);
    return () => this.listeners.delete(listener);
  }

  /** Stops generation (shutdown); the run still stores what it has, as a failed message. */
  cancel(reason: ApiError): void {
    this.abort.abort(reason);
  }

  /** Stops generation at a client's request: what was generated is stored as `stopped`. */
  stop(): void {
    if (!this.abort.signal.aborted) this.abort.abort(new StopRequest());
  }

  private emit(event: RunEvent, store = true): void {
    const e = { seq: ++this.seq, event };
    this.events.push(e);
    if (store) {
      this.pending.push({ seq: e.seq, data: JSON.stringify(event) });
      if (this.pending.length >= BATCH_EVENTS) this.flush();
      else this.flushTimer ??= setTimeout(() => this.flush(), this.deps.options.replyFlushMs);
    }
    for (const [l, after] of this.listeners) {
      if (e.seq <= after && !isTerminal(event)) continue;
      try {
        l(e);
      } catch {
        // A listener's failure is its connection's problem; the run and the others go on.
        this.listeners.delete(l);
      }
    }
  }

  /**
   * Queues one write of what is pending (one statement; one write at a time, in order). While a
   * write is queued and not yet started, it will take everything pending: no second one is queued
   * (else every event emitted during a slow write would queue a write of its own).
   */
  private flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.flushQueued) return this.writing;
    this.flushQueued = true;
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    this.flushQueued = false;
    if (this.finished) return;
    const { db, now, options, logger } = this.deps;
    const events = this.pending;
    const delta = this.delta;
    this.pending = [];
    this.delta = "";
    const lastSeq = events.at(-1)?.seq ?? this.storedSeq;
    try {
      const result = await flushReply(db, {
        id: this.id,
        events,
        delta,
        lastSeq,
        leaseUntil: now() + options.replyLeaseMs,
      });
      this.storedSeq = lastSeq;
      if (events.length) this.notifier.local(`e:${this.id}`);
      if (result === "stop") this.stop();
      else if (result === "gone") await this.lost();
    } catch (error) {
      // Nothing was written (one statement): keep it for the next flush.
      this.pending = [...events, ...this.pending];
      this.delta = delta + this.delta;
      logger.warn({ message_id: this.id, error }, "storing part of a reply failed; retrying with the next flush");
    }
  }

  /** The reply left `in_progress` under us: deleted with its conversation, or swept after a lost lease. */
  async lost(): Promise<void> {
    const status = await replyStatus(this.deps.db, this.id).catch(() => undefined);
    this.cancel(
      status === null
        ? new ApiError("not_found", "The conversation was deleted before the reply could be stored.")
        : new ApiError(
            "generation_failed",
            "The reply's lease expired (this instance stalled); it was ended as failed.",
          ),
    );
  }

  private finished = false;
  /**
   * Feeds the agent's chunks to `onChunk` until it ends or the run is cancelled. The whole
   * consumption races the abort (once per run, not per token), so an agent that ignores its
   * signal cannot hold the run, or shutdown, hostage; whatever it yields after that is dropped.
   */
  private async generate(
    agent: Agent,
    history: ChatTurn[],
    message: string,
    onChunk: (c: AgentChunk) => void,
  ): Promise<void> {
    const signal = this.abort.signal;
    const consume = (async () => {
      for await (const chunk of agent.respond({ history, message, signal })) {
        if (signal.aborted) return; // leaving the loop calls the agent's return()
        onChunk(chunk);
      }
    })();
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(signal.reason);
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    });
    // Whichever loses the race settles unobserved; neither may become an unhandled rejection.
    consume.catch(() => {});
    aborted.catch(() => {});
    await Promise.race([consume, aborted]);
  }

  private async execute(history: ChatTurn[], message: string): Promise<RunOutcome> {
    const { db, agent, logger, now } = this.deps;
    await Promise.resolve(); // let the caller subscribe before the first token
    let content = "";
    let sources: string[] = [];
    let usage = null as Usage | null; // set in the callback below
    let failure: ApiError | null = null;
    let stopped = false;
    let cut = false; // the agent ended the reply at a local limit (agent/cap.ts)
    try {
      await this.generate(agent, history, message, (chunk) => {
        if (chunk.type === "token") {
          const text = storable(chunk.content);
          if (!text) return;
          content += text;
          this.delta += text;
          this.emit({ type: "token", content: text });
        } else if (chunk.type === "usage") {
          const u = {
            input_tokens: count(chunk.usage?.input_tokens),
            output_tokens: count(chunk.usage?.output_tokens),
          };
          usage = u.input_tokens === null && u.output_tokens === null ? null : u;
        } else if (chunk.type === "finish") {
          cut = true;
        } else if (Array.isArray(chunk.sources)) {
          sources = [...new Set(chunk.sources.filter((u): u is string => typeof u === "string").map(storable))];
        }
      });
    } catch (error) {
      const reason = this.abort.signal.reason;
      if (reason instanceof StopRequest) {
        stopped = true;
        sources = [];
        logger.info({ message_id: this.id }, "generation stopped on request");
      } else if (reason instanceof ApiError) {
        // Cut off on purpose (shutdown): expected, no stack.
        failure = reason;
        logger.warn(
          { conversation_id: this.conversationId, code: reason.code, reason: reason.message },
          "generation cut off",
        );
      } else if (error instanceof ApiError && UPSTREAM.has(error.code)) {
        // A provider failure: the model agent logged it once.
        failure = error;
      } else {
        failure = new ApiError("generation_failed", "The agent failed while generating the reply.", { cause: error });
        logger.error({ conversation_id: this.conversationId, error: describeError(error) }, "generation failed");
      }
    }
    if (!failure && !stopped) this.emit({ type: "sources", sources });
    // Let the sockets take what was just emitted before this run spends CPU on persisting: when
    // many runs wake at once, their tokens go out first instead of after every run's writes.
    await new Promise((r) => setTimeout(r, 0));
    this.leases.remove(this.id);
    clearTimeout(this.flushTimer);
    this.unsubscribeStop();
    await this.writing;
    this.finished = true;
    const ended = stopped ? "stopped" : cut ? "length" : "completed";
    const status = failure ? "failed" : ended;
    const terminal = (): RunEvent =>
      failure
        ? { type: "error", error: failure.toPayload() }
        : { type: "end", message_id: this.id, status: ended, usage };
    const seq = this.seq + 1;
    try {
      const events = [...this.pending, { seq, data: JSON.stringify(terminal()) }];
      const stored = await finishReply(db, {
        id: this.id,
        events,
        delta: this.delta,
        lastSeq: seq,
        status,
        sources,
        usage,
        at: now(),
      });
      if (stored) this.notifier.local(`e:${this.id}`);
      else {
        const left = await replyStatus(db, this.id);
        failure ??=
          left === null
            ? new ApiError("not_found", "The conversation was deleted before the reply could be stored.")
            : new ApiError(
                "generation_failed",
                "The reply's lease expired (this instance stalled); it was ended as failed.",
              );
      }
    } catch (error) {
      logger.error({ conversation_id: this.conversationId, error: describeError(error) }, "storing the reply failed");
      failure ??= toApiError(error);
    }
    this.emit(terminal(), false);
    if (failure) return { ok: false, error: failure };
    return {
      ok: true,
      message: {
        id: this.id,
        conversationId: this.conversationId,
        role: "assistant",
        content,
        sources,
        status: ended,
        createdAt: this.createdAt,
        leaseUntil: null,
        stopRequested: stopped,
        lastSeq: seq,
        inputTokens: usage?.input_tokens ?? null,
        outputTokens: usage?.output_tokens ?? null,
      },
    };
  }
}

// The registry lives in its own file; re-exported so `import { RunRegistry } from "./run.ts"` keeps working.
export { RunRegistry } from "./registry.ts";

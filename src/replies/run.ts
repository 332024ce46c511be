/**
 * A run: the generation of one reply in this process. The reply exists in the database from the
 * run's first moment (`in_progress`, with its `start` event); its events reach the store through
 * the write batcher, each write renewing the lease; the last statement stores the terminal event
 * and the final status. The run does not depend on any HTTP connection: a response subscribes.
 */
import { describeError } from "../config/logger.ts";
import type { StreamEvent } from "../contract/events.ts";
import { SQLSTATE, sqlState } from "../db/errors.ts";
import { toApiError } from "../http/error-handler.ts";
import { ApiError } from "../http/errors.ts";
import { newId } from "../primitives.ts";
import { type ActiveSpan, inSpan, NOOP_TRACE } from "../tracing/index.ts";
import {
  EventLog,
  endEvent,
  errorEvent,
  RESUME_TOKEN_TTL_MS,
  replyLost,
  resumeToken,
  type Sequenced,
} from "./event-log.ts";
import { type Batch, certaintyOf, type Generated, type GenerateInput, generate, WriteBatcher } from "./generate.ts";
import { stopTopic } from "./notify.ts";
import { type RunInput, type RunOutcome, StopRequest, whyEnded } from "./outcome.ts";
import { replyStatus } from "./reads.ts";
import type { RepliesDeps, Shared } from "./types.ts";

export class Run {
  private readonly log = new EventLog();
  readonly done: Promise<RunOutcome>;
  private readonly abort = new AbortController();
  /** Made at the first event after `start`: a run still waiting for its model holds none. */
  private batcher: WriteBatcher | undefined;
  private readonly onStop = () => this.stop();
  /** Called once when the run is over (the registry's). */
  ended: ((run: Run) => void) | undefined;
  /** The run is over (`done` is settling). */
  finished = false;
  private sentSources = false;

  /** Stores the reply as `in_progress` with its `start` event, then generates it. */
  static async start(deps: RepliesDeps & Shared, input: RunInput): Promise<Run> {
    const id = newId("msg");
    const createdAt = Math.max(deps.now(), input.at.getTime() + 1);
    const start: StreamEvent = {
      type: "start",
      conversation_id: input.conversationId,
      message_id: id,
      resume_token: await resumeToken(deps.db, input.conversationId, id, createdAt + RESUME_TOKEN_TTL_MS),
    };
    // The reply's span covers the run: its create, the agent's spans, every write (docs/operations.md).
    const span = (input.trace ?? NOOP_TRACE).start("reply", {
      "parley.message_id": id,
      "parley.conversation_id": input.conversationId,
    });
    try {
      const { conversationId } = input;
      const leaseUntil = deps.now() + deps.options.replyLeaseMs;
      const also = [deps.touchConversation(createdAt), ...(input.also ?? [])];
      const row = { id, conversationId, createdAt, leaseUntil, start: JSON.stringify(start), also };
      await inSpan(span.trace, "reply.create", () => deps.store.create(row), { "parley.writes": also.length + 1 });
    } catch (error) {
      span.end(error);
      // A DELETE of the conversation won the race since the turn began.
      if (sqlState(error) === SQLSTATE.foreignKeyViolation)
        throw new ApiError("not_found", "The conversation was deleted.", { param: "conversation_id" });
      throw error;
    }
    return new Run(deps, id, new Date(createdAt), input, start, span);
  }

  private constructor(
    private readonly deps: RepliesDeps & Shared,
    readonly id: string,
    readonly createdAt: Date,
    input: RunInput,
    start: StreamEvent,
    private readonly span: ActiveSpan,
  ) {
    this.conversationId = input.conversationId;
    this.log.push({ seq: 1, event: start });
    deps.notifier.on(stopTopic(id), this.onStop);
    // Renews the lease while the agent is silent (a model thinking before its first token).
    deps.leases.add(this);
    // Only what the agent is asked: the input's writes (and the rows they close over) were stored
    // with the reply, and a run waiting on its model must not keep them.
    const { history, message, knowledgeBaseId, settings } = input;
    this.done = this.execute({ history, message, knowledgeBaseId, settings, trace: span.trace });
  }

  readonly conversationId: string;

  get events(): readonly Sequenced[] {
    return this.log.events;
  }

  subscribe(listener: (e: Sequenced) => void, after = 0): () => void {
    return this.log.subscribe(listener, after);
  }

  /** Stops generation (shutdown); the run still stores what it has, as a failed message. */
  cancel(reason: ApiError): void {
    this.abort.abort(reason);
  }

  /** Stops generation at a client's request: what was generated is stored as `stopped`. */
  stop(): void {
    if (!this.abort.signal.aborted) this.abort.abort(new StopRequest());
  }

  /** The reply left `in_progress` under us: deleted with its conversation, or swept after a lost lease. */
  async lost(): Promise<void> {
    this.cancel(replyLost(await replyStatus(this.deps.store.db, this.id).catch(() => undefined)));
  }

  private emit(event: StreamEvent, text = ""): void {
    if (event.type === "sources") this.sentSources = true;
    const seq = this.log.lastSeq + 1;
    this.batcher ??= new WriteBatcher((batch) => this.write(batch), {
      flushMs: this.deps.options.replyFlushMs,
      storedSeq: 1,
      onError: (error) =>
        this.deps.logger.warn(
          { message_id: this.id, error },
          "storing part of a reply failed; retrying with the next flush",
        ),
    });
    this.batcher.add({ seq, data: JSON.stringify(event) }, text);
    this.log.push({ seq, event });
  }

  private async write(batch: Batch): Promise<void> {
    const leaseUntil = this.deps.now() + this.deps.options.replyLeaseMs;
    const result = await inSpan(
      this.span.trace,
      "reply.flush",
      async (span) => {
        const answer = await this.deps.store.flush({ id: this.id, ...batch, leaseUntil });
        span.set({ "parley.flush.result": answer });
        return answer;
      },
      { "parley.events": batch.events.length, "parley.last_seq": batch.lastSeq },
    );
    if (result === "stop") this.stop();
    else if (result === "gone") await this.lost();
  }

  private async execute(ask: GenerateInput): Promise<RunOutcome> {
    try {
      const { agent, logger } = this.deps;
      await Promise.resolve(); // let the caller subscribe before the first token
      const out: Generated = { content: "", sources: [], usage: null };
      let failure: ApiError | null = null;
      let stopped = false;
      try {
        await generate(agent, ask, this.abort.signal, out, (event, text) => this.emit(event, text));
      } catch (error) {
        const why = whyEnded(error, this.abort.signal.reason, {
          logger,
          id: this.id,
          conversationId: this.conversationId,
        });
        // A stopped reply keeps the sources already sent: its text may cite them.
        if (why === "stopped") stopped = true;
        else failure = why;
      }
      return await this.settle(out, failure, stopped);
    } finally {
      // The registry forgets the run (a callback, not a `done.finally` closure per run).
      this.finished = true;
      this.ended?.(this);
    }
  }

  /** After generation: the terminal event stored and sent, the outcome. (Its own method: the variables
   * it closes over are not held while the run waits for its model.) */
  private async settle(out: Generated, failure: ApiError | null, stopped: boolean): Promise<RunOutcome> {
    const { logger, store } = this.deps;
    // Sources were sent as they grew; an answer that cites none still says so before its end.
    if (!failure && !stopped && !this.sentSources) this.emit({ type: "sources", sources: out.sources });
    // Let the sockets take what was just emitted before this run spends CPU on persisting: when
    // many runs wake at once, their tokens go out first instead of after every run's writes.
    await new Promise((r) => setTimeout(r, 0));
    this.deps.leases.remove(this.id);
    this.deps.notifier.off(stopTopic(this.id), this.onStop);
    const rest = this.batcher ? await this.batcher.close() : { events: [], delta: "" };
    const ended = stopped ? "stopped" : (out.finish ?? "completed");
    const status = failure ? "failed" : ended;
    const certainty = certaintyOf(out);
    const terminal = () => (failure ? errorEvent(failure) : endEvent(this.id, ended, out.usage, certainty));
    const seq = this.log.lastSeq + 1;
    try {
      const events = [...rest.events, { seq, data: JSON.stringify(terminal()) }];
      const also = [this.deps.touchConversation(this.deps.now())];
      const { sources, usage } = out;
      const row: Parameters<typeof store.finish>[0] = {
        id: this.id,
        events,
        delta: rest.delta,
        lastSeq: seq,
        status,
        sources,
        usage,
        certainty: failure ? null : certainty,
        also,
      };
      const stored = await inSpan(this.span.trace, "reply.finish", () => store.finish(row), {
        "parley.events": events.length,
        "parley.last_seq": seq,
        "parley.reply.status": status,
      });
      if (!stored) failure ??= replyLost(await replyStatus(store.db, this.id));
    } catch (error) {
      logger.error({ conversation_id: this.conversationId, error: describeError(error) }, "storing the reply failed");
      failure ??= toApiError(error);
    }
    this.log.push({ seq, event: terminal(), ...(failure ? { failure } : {}) });
    this.span.set({
      "parley.reply.status": failure ? "failed" : ended,
      "parley.reply.events": seq,
      "gen_ai.usage.input_tokens": out.usage?.input_tokens ?? undefined,
      "gen_ai.usage.output_tokens": out.usage?.output_tokens ?? undefined,
    });
    this.span.end(failure ?? undefined);
    if (failure) return { ok: false, error: failure };
    return { ok: true, status: ended, usage: out.usage, certainty };
  }
}

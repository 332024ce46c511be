/**
 * A generation run: drives the agent, owns the reply's events, and stores the assistant
 * message when the agent finishes or fails. It does not depend on any HTTP connection: a
 * response only subscribes, and a client that leaves only unsubscribes.
 */
import type { Agent, AgentChunk, ChatTurn, Usage } from "../agent/types.ts";
import { describeError, type Logger } from "../config/logger.ts";
import { addMessage, type MessageRow } from "../conversations/service.ts";
import type { Db } from "../db/client.ts";
import { ApiError, type ErrorPayload, sqlState, toApiError } from "../http/errors.ts";
import { newId } from "../ids.ts";

/** The SSE events of a reply, in order: start, token*, sources, end — or error at any point after start. */
export type RunEvent =
  | { type: "start"; conversation_id: string }
  | { type: "token"; content: string }
  | { type: "sources"; sources: string[] }
  | { type: "end"; message_id: string; usage: Usage | null }
  | { type: "error"; error: ErrorPayload };

/** How a run ended: the stored assistant message, or the error it failed with. */
export type RunOutcome = { ok: true; message: MessageRow } | { ok: false; error: ApiError };

/** What a run needs: where to store, who answers, where to log, what time it is. */
export interface RunDeps {
  db: Db;
  agent: Agent;
  logger: Logger;
  now: () => number;
}

/** Failures a model agent reports itself (and has logged): passed to the client as they are. */
const UPSTREAM = new Set(["upstream_error", "upstream_timeout"]);

/** A reported token count as the database can hold it (int4), or null. */
const count = (n: unknown): number | null => (Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= 2_147_483_647 ? (n as number) : null);

/**
 * Agent output as the database can hold it and as it is streamed: a string, without NUL
 * (PostgreSQL text rejects it) and without lone surrogates (stored as U+FFFD otherwise), so
 * the streamed tokens always concatenate to exactly the stored reply.
 */
const storable = (v: unknown): string =>
  String(v ?? "").toWellFormed().replaceAll("\0", "\uFFFD");

export class Run {
  readonly id = newId("msg");
  readonly events: RunEvent[] = [];
  readonly done: Promise<RunOutcome>;
  private readonly listeners = new Set<(e: RunEvent) => void>();
  private readonly abort = new AbortController();

  constructor(
    deps: RunDeps,
    readonly conversationId: string,
    history: ChatTurn[],
    message: string,
  ) {
    this.emit({ type: "start", conversation_id: conversationId });
    this.done = this.execute(deps, history, message);
  }

  /** Replays the events so far, then forwards new ones until unsubscribed. */
  subscribe(listener: (e: RunEvent) => void): () => void {
    for (const e of this.events) listener(e);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops generation; the run still stores what it has, as a failed message. */
  cancel(reason: ApiError): void {
    this.abort.abort(reason);
  }

  private emit(e: RunEvent): void {
    this.events.push(e);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure is its connection's problem; the run and the others go on.
        this.listeners.delete(l);
      }
    }
  }

  /**
   * Feeds the agent's chunks to `onChunk` until it ends or the run is cancelled. The whole
   * consumption races the abort (once per run, not per token), so an agent that ignores its
   * signal cannot hold the run, or shutdown, hostage; whatever it yields after that is dropped.
   */
  private async generate(agent: Agent, history: ChatTurn[], message: string, onChunk: (c: AgentChunk) => void): Promise<void> {
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

  private async execute({ db, agent, logger, now }: RunDeps, history: ChatTurn[], message: string): Promise<RunOutcome> {
    await Promise.resolve(); // let the caller subscribe before the first token
    let content = "";
    let sources: string[] = [];
    let usage = null as Usage | null; // set in the callback below
    let failure: ApiError | null = null;
    try {
      await this.generate(agent, history, message, (chunk) => {
        if (chunk.type === "token") {
          const text = storable(chunk.content);
          if (!text) return;
          content += text;
          this.emit({ type: "token", content: text });
        } else if (chunk.type === "usage") {
          const u = { input_tokens: count(chunk.usage?.input_tokens), output_tokens: count(chunk.usage?.output_tokens) };
          usage = u.input_tokens === null && u.output_tokens === null ? null : u;
        } else if (Array.isArray(chunk.sources)) {
          sources = [...new Set(chunk.sources.filter((u): u is string => typeof u === "string").map(storable))];
        }
      });
    } catch (error) {
      const reason = this.abort.signal.reason;
      // Cut off on purpose (shutdown): expected, no stack. A provider failure: the model agent
      // logged it once. Anything else is the agent failing.
      if (reason instanceof ApiError) {
        failure = reason;
        logger.warn({ conversation_id: this.conversationId, code: reason.code, reason: reason.message }, "generation cut off");
      } else if (error instanceof ApiError && UPSTREAM.has(error.code)) {
        failure = error;
      } else {
        failure = new ApiError("generation_failed", "The agent failed while generating the reply.", { cause: error });
        logger.error({ conversation_id: this.conversationId, error: describeError(error) }, "generation failed");
      }
    }
    if (!failure) this.emit({ type: "sources", sources });
    // Let the sockets take what was just emitted before this run spends CPU on persisting: when
    // many runs wake at once, their tokens go out first instead of after every run's writes.
    await new Promise((r) => setTimeout(r, 0));
    try {
      const stored = await addMessage(db, {
        id: this.id,
        conversationId: this.conversationId,
        role: "assistant",
        content,
        sources,
        status: failure ? "failed" : "completed",
        createdAt: new Date(now()),
        inputTokens: usage?.input_tokens ?? null,
        outputTokens: usage?.output_tokens ?? null,
      });
      if (!failure) {
        this.emit({ type: "end", message_id: stored.id, usage });
        return { ok: true, message: stored };
      }
    } catch (error) {
      if (sqlState(error) === "23503") {
        // foreign_key_violation: the conversation was deleted while the reply was generated.
        failure ??= new ApiError("not_found", "The conversation was deleted before the reply could be stored.");
      } else {
        logger.error({ conversation_id: this.conversationId, error: describeError(error) }, "storing the reply failed");
        failure ??= toApiError(error);
      }
    }
    this.emit({ type: "error", error: failure.toPayload() });
    return { ok: false, error: failure };
  }
}

/** The runs alive in this process, so shutdown can let them finish (or end them). */
export class RunRegistry {
  private readonly runs = new Set<Run>();
  private cutOff: ApiError | null = null;

  track(run: Run): Run {
    this.runs.add(run);
    void run.done.finally(() => this.runs.delete(run));
    // A request already inside the handler when shutdown cut runs off still gets cut off.
    if (this.cutOff) run.cancel(this.cutOff);
    return run;
  }

  get size(): number {
    return this.runs.size;
  }

  /**
   * Waits up to `graceMs` for runs to finish, then cancels the rest and gives them up to
   * `storeMs` to store what they have (a cancelled run ends at once; only its write remains).
   */
  async drain(graceMs: number, storeMs = 5_000): Promise<void> {
    if (await this.settled(graceMs)) return;
    this.cutOff = new ApiError("service_unavailable", "The server is shutting down; the reply was cut short.");
    for (const run of this.runs) run.cancel(this.cutOff);
    await this.settled(storeMs);
  }

  /** Whether every run (including ones started meanwhile) finished within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
    const all = async (): Promise<true> => {
      while (this.runs.size) await Promise.all([...this.runs].map((r) => r.done));
      return true;
    };
    const result = await Promise.race([all(), expired]);
    clearTimeout(timer);
    return result;
  }
}

/**
 * Generating a reply: driving the agent for one run — its chunks become the reply's text,
 * sources and usage. Sources grow as the agent cites (each chunk the whole list so far): a list
 * that changed is handed on at once, in order with the tokens, so a client knows `[k]`'s source
 * before the token that cites it. The whole consumption races the run's abort signal (once per run, not per
 * token), so an agent that ignores its signal cannot hold the run, or shutdown, hostage;
 * whatever it yields after that is dropped.
 *
 * And the write batcher that stores what it yields: a reply's events reach the store in batches,
 * never a write per token. An event waits at most `flushMs` (or until `maxEvents` wait); one
 * write runs at a time, in order; a write queued and not yet started takes everything pending
 * when it starts, so N events during a slow write give one statement, not N. A failed write
 * keeps its batch for the next one. The store and the clock are injected
 * (tests/unit/batcher.test.ts drives both).
 */
import type { Agent, ChatTurn, GenerationSettings } from "../agent/index.ts";
import { CERTAINTIES, type Certainty } from "../contract/analytics.ts";
import type { StreamEvent, Usage } from "../contract/events.ts";
import type { Trace } from "../tracing/index.ts";

/** What the agent produced so far (kept when it fails: a stopped reply stores its partial text and the sources sent). */
export interface Generated {
  content: string;
  sources: string[];
  usage: Usage | null;
  /** The agent's `finish` reason: `length` when it ended the reply at a limit (agent/cap.ts), stored as the status. */
  finish?: "length";
  /** How sure the agent said it was (its last `certainty` chunk). */
  certainty?: Certainty;
}

/** The reply's certainty: the agent's word, else what its sources say. */
export const certaintyOf = (out: Generated): Certainty =>
  out.certainty ?? (out.sources.length ? "answered" : "no_sources");

/** What the agent is asked. */
export interface GenerateInput {
  history: ChatTurn[];
  message: string;
  knowledgeBaseId: string | null;
  settings?: GenerationSettings;
  trace?: Trace;
}

/** A reported token count as the database can hold it (int4), or null. */
const count = (n: unknown): number | null =>
  Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= 2_147_483_647 ? (n as number) : null;

/**
 * Agent output as the database can hold it and as it is streamed: a string, without NUL
 * (PostgreSQL text rejects it) and without lone surrogates (stored as U+FFFD otherwise), so
 * the streamed tokens always concatenate to exactly the stored reply.
 */
export const storable = (v: unknown): string =>
  String(v ?? "")
    .toWellFormed()
    .replaceAll("\0", "\uFFFD");

/** A token (with the text it adds) or the sources so far, as the run streams them. */
export type OnEvent = (event: Extract<StreamEvent, { type: "token" | "sources" }>, text?: string) => void;

/**
 * Feeds the agent's output into `out`, calling `on` for each piece of text and each change of
 * the sources; rejects with the signal's reason when aborted, without waiting for the agent.
 */
export function generate(
  agent: Agent,
  input: GenerateInput,
  signal: AbortSignal,
  out: Generated,
  on: OnEvent,
): Promise<void> {
  const consume = consumeAgent(agent, input, signal, out, on);
  // One promise settles with whichever comes first, the agent's end or the abort; the other's
  // outcome lands on a settled promise, so it never becomes an unhandled rejection. (A race of
  // two promises, each with a catch, was a dozen more objects per waiting run.)
  return new Promise<void>((resolve, reject) => {
    consume.then(resolve, reject);
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", new RejectOnAbort(signal, reject), { once: true });
  });
}

/** The abort's listener: an object holding what it needs, not closures over this module's scopes. */
class RejectOnAbort implements EventListenerObject {
  constructor(
    private readonly signal: AbortSignal,
    private readonly reject: (reason: unknown) => void,
  ) {}

  handleEvent(): void {
    this.reject(this.signal.reason);
  }
}

async function consumeAgent(
  agent: Agent,
  { history, message, knowledgeBaseId, settings, trace }: GenerateInput,
  signal: AbortSignal,
  out: Generated,
  on: OnEvent,
): Promise<void> {
  for await (const chunk of agent.respond({
    history,
    message,
    knowledgeBaseId,
    signal,
    ...(settings ? { settings } : {}),
    ...(trace ? { trace } : {}),
  })) {
    if (signal.aborted) return; // leaving the loop calls the agent's return()
    if (chunk.type === "token") {
      const text = storable(chunk.content);
      if (!text) continue;
      out.content += text;
      on({ type: "token", content: text }, text);
    } else if (chunk.type === "usage") {
      const u = { input_tokens: count(chunk.usage?.input_tokens), output_tokens: count(chunk.usage?.output_tokens) };
      out.usage = u.input_tokens === null && u.output_tokens === null ? null : u;
    } else if (chunk.type === "finish") {
      out.finish = chunk.reason;
    } else if (chunk.type === "certainty") {
      // A custom agent's value is checked like its other chunks: the column takes three words.
      if ((CERTAINTIES as readonly unknown[]).includes(chunk.certainty)) out.certainty = chunk.certainty;
    } else if (Array.isArray(chunk.sources)) {
      const sources = [...new Set(chunk.sources.filter((u): u is string => typeof u === "string").map(storable))];
      if (sources.length === out.sources.length && sources.every((u, i) => u === out.sources[i])) continue;
      out.sources = sources;
      on({ type: "sources", sources });
    }
  }
}

/** One stored event: its sequence number (SSE id) and the exact JSON of its data line. */
export interface StoredEvent {
  seq: number;
  data: string;
}

/** What one write stores: the events, the text they add, and the reply's last sequence number. */
export interface Batch {
  events: StoredEvent[];
  delta: string;
  lastSeq: number;
}

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface BatcherOptions {
  flushMs: number;
  /** Write at once when this many events wait, whatever the interval. */
  maxEvents?: number;
  /** The sequence number already stored (the `start` event: 1). */
  storedSeq?: number;
  clock?: Clock;
  /** A write failed (nothing was stored: one statement); its batch goes with the next one. */
  onError?: (error: unknown) => void;
}

export class WriteBatcher {
  private pending: StoredEvent[] = [];
  private delta = "";
  private storedSeq: number;
  private timer: unknown;
  private writing: Promise<void> = Promise.resolve();
  private queued = false;
  private closed = false;
  private readonly clock: Clock;

  constructor(
    private readonly write: (batch: Batch) => Promise<void>,
    private readonly options: BatcherOptions,
  ) {
    this.storedSeq = options.storedSeq ?? 0;
    this.clock = options.clock ?? realClock;
  }

  /** Queues an event (and the reply text it adds) for the next write. */
  add(event: StoredEvent, text = ""): void {
    if (this.closed) return;
    this.pending.push(event);
    this.delta += text;
    if (this.pending.length >= (this.options.maxEvents ?? 256)) void this.flush();
    else this.timer ??= this.clock.setTimeout(() => void this.flush(), this.options.flushMs);
  }

  /** Queues one write of what is pending; resolves when it is done. */
  flush(): Promise<void> {
    this.clearTimer();
    if (this.queued || this.closed) return this.writing;
    this.queued = true;
    this.writing = this.writing.then(() => this.writeNow());
    return this.writing;
  }

  /** Stops batching: waits for the write under way and hands back what was never written. */
  async close(): Promise<Batch> {
    this.clearTimer();
    await this.writing;
    this.closed = true;
    return this.take();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private take(): Batch {
    const batch = { events: this.pending, delta: this.delta, lastSeq: this.pending.at(-1)?.seq ?? this.storedSeq };
    this.pending = [];
    this.delta = "";
    return batch;
  }

  private async writeNow(): Promise<void> {
    this.queued = false;
    if (this.closed) return;
    const batch = this.take();
    try {
      await this.write(batch);
      this.storedSeq = batch.lastSeq;
    } catch (error) {
      this.pending = [...batch.events, ...this.pending];
      this.delta = batch.delta + this.delta;
      this.options.onError?.(error);
    }
  }
}

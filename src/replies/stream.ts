/**
 * A reply's stream: the events of one reply after a position, up to and including its terminal
 * event. It is the one thing the replies front door gives its readers, whatever the events come
 * from: the run generating the reply here, a tail of the database (a reply generated elsewhere),
 * or, for an ended reply, its stored pages through the shared pager (replay.ts). Every reader
 * follows one the same way — `subscribe` delivers each event once, in order, and ends with the
 * terminal event — and every answer is a transform of one:
 * - `response()`: Parley's SSE (`id:` and `data:` frames, the shared keep-alive);
 * - `outcome()`: the reply folded into its final form (`FinalReply`), from which the JSON answers
 *   of POST /chat, Chat Completions and MCP's `ask` are mapped;
 * - `ended(ms)`: whether it ended within `ms` (stop);
 * - the OpenAI-compatible chunks (openai-compat/stream.ts) subscribe and translate.
 * A stream has one reader: each response or fold takes its own.
 */
import type { Certainty } from "../contract/analytics.ts";
import type { ReplyStatus, StreamEvent, Usage } from "../contract/events.ts";
import { toApiError } from "../http/error-handler.ts";
import { ApiError } from "../http/errors.ts";
import type { KeepAlive } from "../http/keep-alive.ts";
import { type SseOptions, type SseResponse, sseResponse } from "../http/sse.ts";
import { conversationDeleted, type EventLog, errorEvent, isTerminal, type Sequenced } from "./event-log.ts";
import { eventsOf, type ReplayPager } from "./replay.ts";

/** What the streams of one `createReplies` read from. */
export interface Origins {
  /** The run generating reply `id` here, else the tail following it through the database. */
  live(id: string): Pick<EventLog, "subscribe">;
  /** Ended replies' stored pages, shared by every reader. */
  pager: ReplayPager;
  /** Parley's SSE (`sseOf`), with one keep-alive timer for every stream (http/keep-alive.ts). */
  sse: SseOptions<Sequenced>;
}

/** Parley's SSE of a reply's events: each with its sequence number as the `id:`, closed after the terminal one. */
export const sseOf = (keepAlive: KeepAlive): SseOptions<Sequenced> => ({
  keepAlive,
  isLast: (e) => isTerminal(e.event),
  encode: (e) => ({ id: e.seq, data: e.event }),
});

/** A reader's listener: each event in order; returning true stops reading before the end. */
export type ReplyListener = (e: Sequenced) => boolean | undefined | void;

export class ReplyStream {
  #listener: ReplyListener | undefined;
  #unsubscribe: (() => void) | undefined;
  #done = false;

  constructor(
    private readonly origins: Origins,
    readonly id: string,
    /** Events after this sequence number (0: from `start`). */
    readonly after: number,
    /** The reply has ended: its events are read from the store, page by page. */
    private readonly stored: boolean,
  ) {}

  /** The shared keep-alive, for a writer of another dialect (openai-compat/stream.ts). */
  get keepAlive(): KeepAlive {
    return this.origins.sse.keepAlive;
  }

  /**
   * Delivers every event after the position, then the live ones, the terminal event last (always:
   * see event-log.ts), then stops by itself. Returns the way to stop earlier (the reader left).
   */
  subscribe(listener: ReplyListener): () => void {
    this.#read(listener);
    if (this.stored) void this.#replay();
    else {
      const unsubscribe = this.origins.live(this.id).subscribe((e) => this.#deliver(e), this.after);
      // The replay held the terminal event: the subscription is over already.
      if (this.#done) unsubscribe();
      else this.#unsubscribe = unsubscribe;
    }
    return () => this.#stop();
  }

  /** Parley's SSE answer: each event with its sequence number as the `id:`, so any client can resume on any instance. */
  response(): SseResponse {
    if (!this.stored) return sseResponse(this, this.origins.sse);
    // Stored pages, framed once for every reader, go out as the client takes them.
    this.#read(() => true);
    return this.origins.pager.response(this.id, this.after);
  }

  /** The reply folded: its final form, or its failure thrown (the run's own ApiError when it ran here). */
  outcome(): Promise<FinalReply> {
    return new Promise((resolve, reject) => {
      const fold = new ReplyFold();
      this.subscribe((e) => {
        const r = fold.add(e);
        if (r instanceof ApiError) reject(r);
        else if (r) resolve(r);
      });
    });
  }

  /** Whether the reply ended (true) or `ms` passed first (false). */
  ended(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        stop();
        resolve(false);
      }, ms);
      const stop = this.subscribe((e) => {
        if (!isTerminal(e.event)) return;
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  #read(listener: ReplyListener): void {
    if (this.#listener) throw new Error("A ReplyStream has one reader.");
    this.#listener = listener;
  }

  #deliver(e: Sequenced): void {
    if (this.#done) return;
    const enough = this.#listener!(e) === true;
    if (enough || isTerminal(e.event)) this.#stop(true);
  }

  /** Stops reading; `inDelivery`: from inside the source's delivery, so unsubscribed once it is done. */
  #stop(inDelivery = false): void {
    if (this.#done) return;
    this.#done = true;
    const unsubscribe = this.#unsubscribe;
    if (unsubscribe) inDelivery ? queueMicrotask(unsubscribe) : unsubscribe();
  }

  /**
   * An ended reply's events from its stored pages. A read that fails ends the stream with its
   * error (the store is away, say); pages that end without a terminal event belong to a reply
   * deleted with its conversation meanwhile, which ends the stream as a tail would end it.
   */
  async #replay(): Promise<void> {
    let position = this.after;
    let failure: ApiError;
    try {
      for (;;) {
        const page = await this.origins.pager.read(this.id, position);
        for (const e of eventsOf(page)) {
          if (this.#done) return;
          this.#deliver({ seq: e.seq, event: JSON.parse(e.data) as StreamEvent });
        }
        position = page.last ?? position;
        if (this.#done) return;
        if (page.count < page.limit) break;
      }
      failure = conversationDeleted();
    } catch (error) {
      failure = toApiError(error);
    }
    this.#deliver({ seq: position + 1, event: errorEvent(failure), failure });
  }
}

/** A reply as its events add up: what every JSON answer is mapped from. */
export interface FinalReply {
  id: string;
  conversationId: string;
  content: string;
  /** In order of first citation: `[k]` in `content` is `sources[k-1]`. */
  sources: string[];
  /** `end`'s status: completed, stopped, or (a local output cap) length. */
  status: ReplyStatus;
  usage: Usage | null;
  /** Null for a reply whose end event predates certainty. */
  certainty: Certainty | null;
}

/**
 * Folds a reply's events, one at a time, into its final form: `add` answers null until the
 * terminal event, then the final reply (`end`) or its failure (`error`: the run's own ApiError
 * when it ran here, with its headers and cause; else one rebuilt from the event).
 */
export class ReplyFold {
  #conversationId = "";
  #messageId = "";
  #content = "";
  #sources: string[] = [];

  add({ event: e, failure }: Sequenced): FinalReply | ApiError | null {
    switch (e.type) {
      case "start":
        this.#conversationId = e.conversation_id;
        this.#messageId = e.message_id;
        return null;
      case "token":
        this.#content += e.content;
        return null;
      case "sources":
        this.#sources = e.sources;
        return null;
      case "error":
        return failure ?? new ApiError(e.error.code, e.error.message);
      case "end":
        return {
          id: this.#messageId || e.message_id,
          conversationId: this.#conversationId,
          content: this.#content,
          sources: this.#sources,
          status: e.status,
          usage: e.usage,
          certainty: e.certainty ?? null,
        };
    }
  }
}

/** Reads SSE responses with a real parser (eventsource-parser). */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseRead {
  events: any[];
  comments: string[];
  /** The raw bytes as text, for wire-format assertions. */
  raw: string;
}

/** An SSE event with its id. */
export interface IdEvent {
  id: number;
  data: any;
}

/** Feeds the response to a parser until it ends, or until `stop()` says so (then cancels it). */
async function feed(
  res: Response,
  on: { event(e: EventSourceMessage): void; comment?(c: string): void; text?(t: string): void },
  stop: () => boolean,
) {
  const parser = createParser({ onEvent: on.event, onComment: on.comment });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    on.text?.(text);
    parser.feed(text);
    if (stop()) {
      await reader.cancel();
      break;
    }
  }
}

/** The events' data, comments and raw text; stops (cancelling) after `stopAfter` events if given. */
export async function readSse(res: Response, opts: { stopAfter?: number } = {}): Promise<SseRead> {
  const out: SseRead = { events: [], comments: [], raw: "" };
  await feed(
    res,
    {
      event: (e) => out.events.push(JSON.parse(e.data)),
      comment: (c) => out.comments.push(c.trim()),
      text: (t) => (out.raw += t),
    },
    () => opts.stopAfter !== undefined && out.events.length >= opts.stopAfter,
  );
  return out;
}

/** The events with their ids, for resume tests; stops (cancelling) after `stopAfter` events if given. */
export async function readEvents(res: Response, stopAfter?: number): Promise<IdEvent[]> {
  const events: IdEvent[] = [];
  await feed(
    res,
    { event: (e) => events.push({ id: Number(e.id), data: JSON.parse(e.data) }) },
    () => stopAfter !== undefined && events.length >= stopAfter,
  );
  return events;
}

/** A stream being read: the events so far, a wait for an event, and the whole list once it ends. */
export interface SseFollow {
  events: any[];
  /** Resolves at the first event of this type (at once if one came); rejects if the stream ends first. */
  until(type: string): Promise<void>;
  /** Every event, once the stream has ended. */
  done: Promise<any[]>;
}

/** Reads `res` in the background, so a test can act at an event (the first token…) and then read on. */
export function followSse(res: Response): SseFollow {
  const events: any[] = [];
  let notify = () => {};
  const done = feed(
    res,
    {
      event: (e) => {
        events.push(JSON.parse(e.data));
        notify();
      },
    },
    () => false,
  ).then(() => events);
  const until = async (type: string) => {
    for (;;) {
      if (events.some((e) => e.type === type)) return;
      const ended = await Promise.race([new Promise<false>((r) => (notify = () => r(false))), done.then(() => true)]);
      if (ended && !events.some((e) => e.type === type)) throw new Error(`the stream ended with no ${type} event`);
    }
  };
  return { events, until, done };
}

/**
 * The contract of a reply's `sources` events, checked on its events' data: each is the whole list
 * so far (it only grows, an entry never changes), sent only when it grew, and before the first
 * token whose text cites what it adds (`[k]` outside code needs `k` sources already); the last one
 * is returned (the reply's sources).
 */
export function growingSources(events: any[]): string[] {
  let sources: string[] = [];
  let text = "";
  for (const e of events) {
    if (e.type === "sources") {
      if (e.sources.length <= sources.length || !sources.every((u, i) => e.sources[i] === u))
        throw new Error(`sources ${JSON.stringify(e.sources)} do not extend ${JSON.stringify(sources)}`);
      sources = e.sources;
    } else if (e.type === "token") {
      text += e.content;
      const prose = text.split("```").filter((_, i) => i % 2 === 0);
      for (const m of prose.join("\n").matchAll(/\[(\d+)\]/g))
        if (Number(m[1]) > sources.length) throw new Error(`${m[0]} was sent before its source`);
    }
  }
  return sources;
}

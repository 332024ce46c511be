/**
 * Replaying an ended reply: its events are all stored and will not change in meaning (compaction
 * rebuilds the same text for any position), so they are read page by page as the reader takes
 * them (a ReadableStream's `pull` runs only when the client has read what was queued), never the
 * whole reply at once.
 *
 * Pages are shared. One reply replayed to many clients at once (a link shared in a channel, a
 * dashboard reloaded by a team) would otherwise read, frame and encode the same pages once per
 * reader. `ReplayPager` keeps recent pages, framed and encoded once, keyed by (reply, position),
 * and a read already under way is joined rather than repeated. Page boundaries are aligned (a
 * page ends at a multiple of the page size), so readers that started at different positions meet
 * on the same pages after their first. Memory: the pages cached (bounded in bytes) plus one page
 * in flight per reader, whatever the reply's length and however many read it. Every replay of an
 * ended reply reads here: the SSE resume (`response`) and the streams the other doors fold or
 * translate (stream.ts).
 */
import { frame, type SseResponse, SseWriter, terminalStatus } from "../http/sse.ts";
import type { StoredEvent } from "./generate.ts";
import type { readPage } from "./reads.ts";

/** Reads up to `limit` events of reply `id` after `after` as one value (reads.ts's `readPage` over a Db). */
export type PageReader = (id: string, after: number, limit: number) => ReturnType<typeof readPage>;

/** Events per page: ~100 KB of SSE frames for a typical token event. */
export const REPLAY_PAGE = 500;
/** Encoded pages kept for other readers, in bytes (least recently used dropped first). */
export const REPLAY_CACHE_BYTES = 8 * 1_048_576;
/** How long a cached page may be served: a deleted reply's pages do not outlive this. */
const PAGE_TTL_MS = 30_000;

/** One page of a reply's events after a position, as SSE frames encoded; `last` is the last seq (or null). */
export interface ReplayPage {
  readonly bytes: Uint8Array;
  /** The events as read: `seq` and `data` on alternate lines (`eventsOf` reads them). */
  readonly events: string;
  readonly last: number | null;
  readonly count: number;
  /** The number of events the page was asked for: fewer came back when it reached the reply's end. */
  readonly limit: number;
  /** The terminal status its events name, when the page holds the reply's `end` or `error`. */
  readonly status: string | undefined;
}

/** A page's events, in order: what a reader that folds or translates them gets (stream.ts). */
export function* eventsOf(page: Pick<ReplayPage, "events">): Generator<StoredEvent> {
  const text = page.events;
  for (let at = 0; at < text.length; ) {
    const seqEnd = text.indexOf("\n", at);
    const dataEnd = text.indexOf("\n", seqEnd + 1);
    const end = dataEnd === -1 ? text.length : dataEnd;
    yield { seq: Number(text.slice(at, seqEnd)), data: text.slice(seqEnd + 1, end) };
    at = end + 1;
  }
}

/** The status a page's terminal event names (its last, if terminal): only that event's JSON is parsed. */
function statusOf(events: string): string | undefined {
  const data = events.slice(events.lastIndexOf("\n") + 1);
  return data.startsWith('{"type":"end"') || data.startsWith('{"type":"error"')
    ? terminalStatus(JSON.parse(data))
    : undefined;
}

/** A page as a replay sends it: each event framed with its id (its data is the event's JSON already). */
function pageOf(p: Awaited<ReturnType<PageReader>>, limit: number): ReplayPage {
  let frames = "";
  for (const e of eventsOf(p)) frames += frame(e.data, e.seq);
  return { ...p, bytes: encoder.encode(frames), limit, status: statusOf(p.events) };
}

interface Entry {
  readonly page: Promise<ReplayPage>;
  readonly at: number;
  size: number;
}

const encoder = new TextEncoder();

export class ReplayPager {
  readonly #entries = new Map<string, Entry>(); // insertion order: least recently used first
  #bytes = 0;

  constructor(
    private readonly readPage: PageReader,
    private readonly pageEvents = REPLAY_PAGE,
    private readonly maxBytes = REPLAY_CACHE_BYTES,
  ) {}

  /** The page of reply `id` after `after`: from the cache, a read under way, or the database. */
  read(id: string, after: number): Promise<ReplayPage> {
    const key = `${id}:${after}`;
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < PAGE_TTL_MS) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.page;
    }
    if (hit) this.#drop(key, hit);
    const limit = this.pageEvents - (after % this.pageEvents);
    const page = this.readPage(id, after, limit).then((p) => pageOf(p, limit));
    const entry: Entry = { page, at: now, size: 0 };
    this.#entries.set(key, entry);
    page.then(
      (p) => {
        if (this.#entries.get(key) !== entry) return;
        // The empty page past a reply's end is not kept: it would weigh nothing and never leave.
        if (p.count === 0) return this.#drop(key, entry);
        // Held twice: the events as read (for readers that fold or translate them) and framed.
        entry.size = 2 * p.bytes.byteLength;
        this.#bytes += entry.size;
        this.#evict();
      },
      () => this.#entries.get(key) === entry && this.#drop(key, entry),
    );
    return page;
  }

  /** Bytes of pages held for other readers now (tests, metrics). */
  get cachedBytes(): number {
    return this.#bytes;
  }

  /** Forgets every page (close). */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.size;
  }

  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) return;
      if (entry.size > 0) this.#drop(key, entry);
    }
  }

  /** The SSE response replaying the stored events of ended reply `id` after `after`, to its last one. */
  response(id: string, after: number): SseResponse {
    let position = after;
    const writer = new SseWriter(null, {
      pull: async () => {
        // Stored data is the event's JSON already: framed once per page, never parsed here.
        const page = await this.read(id, position);
        if (page.count > 0) writer.write(page.bytes, page.count, page.status);
        position = page.last ?? position;
        if (page.count < page.limit) writer.close();
      },
    });
    return writer.response();
  }
}

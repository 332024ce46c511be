/**
 * Replaying an ended reply (issue 18, item 2): its events are all stored and will not change in
 * meaning (compaction rebuilds the same text for any position), so the response reads them page
 * by page as the client takes them (a ReadableStream's `pull` runs only when the client has read
 * what was queued), never the whole reply at once.
 *
 * Pages are shared. One reply replayed to many clients at once (a link shared in a channel, a
 * dashboard reloaded by a team) would otherwise read, frame and encode the same pages once per
 * reader. `ReplayPager` keeps recent pages, encoded once, keyed by (reply, position), and a read
 * already under way is joined rather than repeated. Page boundaries are aligned (a page ends at a
 * multiple of the page size), so readers that started at different positions meet on the same
 * pages after their first. Memory: the pages cached (bounded in bytes) plus one page in flight
 * per reader, whatever the reply's length and however many read it.
 */
import { SSE_HEADERS } from "../http/sse.ts";
import { SseScanner } from "../http/sse-scan.ts";
import { StreamTally } from "../http/stream-tally.ts";
import type { readFrames } from "./reads.ts";

/** Reads up to `limit` events of reply `id` after `after`, framed (reads.ts's `readFrames` over a Db). */
export type FrameReader = (id: string, after: number, limit: number) => ReturnType<typeof readFrames>;

/** Events per page: ~100 KB of SSE frames for a typical token event. */
export const REPLAY_PAGE = 500;
/** Encoded pages kept for other readers, in bytes (least recently used dropped first). */
export const REPLAY_CACHE_BYTES = 8 * 1_048_576;
/** How long a cached page may be served: a deleted reply's pages do not outlive this. */
const PAGE_TTL_MS = 30_000;

/** One page of a reply's events after a position: SSE frames, encoded; `last` is the last seq (or null). */
export interface ReplayPage {
  readonly bytes: Uint8Array;
  readonly last: number | null;
  readonly count: number;
  /** The number of events the page was asked for: fewer came back when it reached the reply's end. */
  readonly limit: number;
  /** The terminal status its events name, when the page holds the reply's `end` or `error`. */
  readonly status: string | undefined;
}

/** The status a page's terminal event names, read from its bytes once, for every reader (sse-scan.ts). */
function statusOf(bytes: Uint8Array): string | undefined {
  const scan = new SseScanner();
  scan.push(bytes);
  return scan.status;
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
    private readonly readPage: FrameReader,
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
    const page = this.readPage(id, after, limit).then((p): ReplayPage => {
      const bytes = encoder.encode(p.frames);
      return { bytes, last: p.last, count: p.count, limit, status: statusOf(bytes) };
    });
    const entry: Entry = { page, at: now, size: 0 };
    this.#entries.set(key, entry);
    page.then(
      (p) => {
        if (this.#entries.get(key) !== entry) return;
        // The empty page past a reply's end is not kept: it would weigh nothing and never leave.
        if (p.count === 0) return this.#drop(key, entry);
        entry.size = p.bytes.byteLength;
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
  response(id: string, after: number): Response {
    let position = after;
    let done = false;
    const tally = new StreamTally();
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          if (done) return;
          let page: ReplayPage;
          try {
            // Stored data is the event's JSON already: framed by the database, never parsed here.
            page = await this.read(id, position);
          } catch (error) {
            done = true;
            tally.end("error"); // the stream errors, and an errored stream is never cancelled
            throw error;
          }
          if (page.count > 0) controller.enqueue(page.bytes);
          tally.add(page.bytes.byteLength, page.count);
          if (page.status) tally.status = page.status;
          position = page.last ?? position;
          if (page.count < page.limit) {
            done = true;
            controller.close();
            tally.end("incomplete");
          }
        },
        cancel: () => tally.end("client_closed"),
      },
      { highWaterMark: 1 },
    );
    return new Response(tally.attach(body), { status: 200, headers: SSE_HEADERS });
  }
}

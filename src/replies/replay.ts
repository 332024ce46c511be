/**
 * Replaying a finished reply (issue 18, item 2): its events are all stored and will not change,
 * so the response reads them page by page as the client takes them (a ReadableStream's `pull`
 * runs only when the client has read what was queued) instead of loading the whole reply into
 * memory and queueing one chunk per event for every reader. Memory per reader: one page in
 * flight, whatever the reply's length and however many read it at once.
 */
import type { Db } from "../db/client.ts";
import { readFrames } from "./reads.ts";

/** Events per read: ~100 KB of SSE frames for a typical token event. */
export const REPLAY_PAGE = 500;

const encoder = new TextEncoder();

/** The SSE response replaying the stored events of ended reply `id` after `after`, up to the last stored one. */
export function replayStored(db: Db, id: string, after: number): Response {
  let position = after;
  let done = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (done) return;
        // Stored data is the event's JSON already: framed by the database, never parsed here.
        const page = await readFrames(db, id, position, REPLAY_PAGE);
        if (page.frames) controller.enqueue(encoder.encode(page.frames));
        position = page.last ?? position;
        if (page.count < REPLAY_PAGE) {
          done = true;
          controller.close();
        }
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}

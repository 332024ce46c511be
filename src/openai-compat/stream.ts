/**
 * The streamed Chat Completion: `data: {chat.completion.chunk}` lines, the first delta with the
 * role, the text deltas, the annotations on a delta of their own, the last delta with
 * `finish_reason`, the usage chunk (empty `choices`) when asked, then `data: [DONE]`.
 *
 * The response waits for the first token: a reply that fails before it (no passage search, the
 * model provider down) is answered with OpenAI's error shape and status rather than a 200 that
 * then carries an error. A failure after it is one `data: {"error": {…}}` line, then the stream
 * closes without [DONE] (what vLLM and OpenAI send; the SDKs raise it). A first token that takes
 * longer than `keepAliveMs` does not hold the connection silent: the 200 and the role chunk go
 * out, with keep-alive comments after them.
 */
import type { StreamEvent } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";
import { SSE_HEADERS } from "../http/sse.ts";
import { Accumulator, annotationsOf, completionId, finishReason, type Outcome } from "./completion.ts";
import { openAiError } from "./errors.ts";

export interface StreamOptions {
  model: string;
  created: number;
  includeUsage: boolean;
  keepAliveMs: number;
  headers: Record<string, string>;
  titles(urls: string[]): Promise<Map<string, string>>;
}

/** Anything that replays then follows a reply's events (runs/feed.ts). */
export interface EventFeed {
  subscribe(listener: (e: { event: StreamEvent }) => void, after?: number): () => void;
}

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
const PING = encoder.encode(": ping\n\n");

/** Resolves with the streaming response once the first token (or the end) is there; rejects on an early failure. */
export function completionStream(feed: EventFeed, o: StreamOptions): Promise<Response> {
  return new Promise((resolve, reject) => {
    const acc = new Accumulator();
    const early: Uint8Array[] = [];
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    let started = false;
    let closed = false;
    let lastWrite = Date.now();
    let id = "";
    let unsubscribe = () => {};
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Events are handled one after another (the annotations need a title lookup).
    let chain: Promise<void> = Promise.resolve();

    const stop = () => {
      closed = true;
      clearTimeout(timer);
      queueMicrotask(() => unsubscribe());
    };
    const write = (bytes: Uint8Array) => {
      lastWrite = Date.now();
      if (controller) controller.enqueue(bytes);
      else early.push(bytes);
    };
    const chunk = (delta: object, finish: string | null = null) =>
      frame({
        id,
        object: "chat.completion.chunk",
        created: o.created,
        model: o.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    const close = () => {
      stop();
      controller?.close();
    };
    const respond = () => {
      if (started) return;
      started = true;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
          for (const b of early.splice(0)) c.enqueue(b);
          if (closed) c.close();
        },
        cancel: stop, // the client left: the reply goes on and is stored
      });
      resolve(
        new Response(body, {
          headers: { ...o.headers, ...SSE_HEADERS },
        }),
      );
    };
    const ping = () => {
      if (closed) return;
      const quiet = Date.now() - lastWrite;
      if (quiet >= o.keepAliveMs) {
        respond();
        write(PING);
      }
      timer = setTimeout(ping, Math.max(0, o.keepAliveMs - (Date.now() - lastWrite)));
    };
    timer = setTimeout(ping, o.keepAliveMs);

    const handle = async (e: StreamEvent) => {
      if (closed) return;
      const result = acc.add(e);
      if (e.type === "start") {
        id = completionId(e.message_id);
        write(chunk({ role: "assistant", content: "", refusal: null }));
      } else if (e.type === "token") {
        respond();
        write(chunk({ content: e.content }));
      } else if (result instanceof ApiError) {
        if (!started) {
          stop();
          return reject(result);
        }
        write(frame(openAiError(result.toPayload())));
        close();
      } else if (result) {
        await finish(result);
      }
    };
    const finish = async (r: Outcome) => {
      respond();
      const annotations = annotationsOf(r.content, r.sources, await o.titles(r.sources).catch(() => new Map()));
      if (annotations.length) write(chunk({ annotations }));
      write(chunk({}, finishReason(r.status)));
      if (o.includeUsage)
        write(
          frame({
            id,
            object: "chat.completion.chunk",
            created: o.created,
            model: o.model,
            choices: [],
            usage: r.usage,
          }),
        );
      write(frame("[DONE]"));
      close();
    };
    unsubscribe = feed.subscribe(({ event }) => {
      chain = chain.then(() => handle(event)).catch((error) => (started ? close() : reject(error)));
    }, 0);
  });
}

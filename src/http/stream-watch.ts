/**
 * Watches an SSE response that keeps no tally of its own (stream-tally.ts: another producer's, e.g.
 * the OpenAI-compatible door's) to its end, for the access log's second line and the stream metrics:
 * the body is passed through unchanged (pull by pull, so back-pressure holds) while counting
 * bytes and events and keeping the last event, whose type says how the reply ended.
 */
import { SseScanner } from "./sse-scan.ts";
import type { StreamSummary } from "./stream-tally.ts";

export type { StreamSummary };

export function watchStream(response: Response, onEnd: (s: StreamSummary) => void): Response {
  const source = response.body;
  if (!source) return response;
  const reader = source.getReader();
  const scan = new SseScanner();
  let bytes = 0;
  let ended = false;
  const end = (fallback: string) => {
    if (ended) return;
    ended = true;
    onEnd({ bytes, events: scan.events, reply_status: scan.status ?? fallback });
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        end("error");
        throw error;
      }
      if (chunk.done) {
        controller.close();
        end("incomplete");
        return;
      }
      bytes += chunk.value.byteLength;
      scan.push(chunk.value);
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      end("client_closed");
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Watches an SSE response to its end, for the access log's second line and the stream metrics:
 * the body is passed through unchanged (pull by pull, so back-pressure holds) while counting
 * bytes and events and keeping the last event, whose type says how the reply ended.
 */

/** How a stream ended. `reply_status`: from its terminal event, or `client_closed` when the client left first. */
export interface StreamSummary {
  bytes: number;
  events: number;
  reply_status: string;
}

/** The terminal status an SSE event's data names, if it is terminal (tokens are not parsed). */
function statusOf(data: string): string | undefined {
  if (!data.startsWith('{"type":"end"') && !data.startsWith('{"type":"error"')) return undefined;
  try {
    const e = JSON.parse(data) as { type?: string; status?: string; error?: { code?: string } };
    if (e.type === "end") return e.status ?? "completed";
    if (e.type === "error") return `failed:${e.error?.code ?? "unknown"}`;
  } catch {}
  return undefined;
}

export function watchStream(response: Response, onEnd: (s: StreamSummary) => void): Response {
  const source = response.body;
  if (!source) return response;
  const reader = source.getReader();
  const text = new TextDecoder();
  let bytes = 0;
  let events = 0;
  let status: string | undefined;
  let tail = "";
  let ended = false;
  const end = (fallback: string) => {
    if (ended) return;
    ended = true;
    onEnd({ bytes, events, reply_status: status ?? fallback });
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
      // Frames end with a blank line; a frame may span chunks, so only whole frames are read.
      tail += text.decode(chunk.value, { stream: true });
      let cut = tail.indexOf("\n\n");
      while (cut !== -1) {
        const frame = tail.slice(0, cut);
        tail = tail.slice(cut + 2);
        const data = frame.split("\n").find((l) => l.startsWith("data: "));
        if (data !== undefined) {
          events++;
          status = statusOf(data.slice(6)) ?? status;
        }
        cut = tail.indexOf("\n\n");
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      end("client_closed");
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

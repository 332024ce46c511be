/** Reads an SSE response with a real parser (eventsource-parser), keeping comments too. */
import { createParser } from "eventsource-parser";

export interface SseRead {
  events: any[];
  comments: string[];
  /** The raw bytes as text, for wire-format assertions. */
  raw: string;
}

export async function readSse(res: Response, opts: { stopAfter?: number } = {}): Promise<SseRead> {
  const out: SseRead = { events: [], comments: [], raw: "" };
  const parser = createParser({
    onEvent: (e) => out.events.push(JSON.parse(e.data)),
    onComment: (c) => out.comments.push(c.trim()),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    out.raw += text;
    parser.feed(text);
    if (opts.stopAfter !== undefined && out.events.length >= opts.stopAfter) {
      await reader.cancel();
      break;
    }
  }
  return out;
}

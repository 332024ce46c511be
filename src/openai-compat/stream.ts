/**
 * The streamed Chat Completion: the reply's stream translated, event by event, into
 * `data: {chat.completion.chunk}` frames of the one SSE writer (http/sse.ts): the first delta
 * with the role, the text deltas (a citation marker held only until its source is known, when it
 * becomes a link: citations.ts), the annotations on a delta of their own, the last delta with
 * `finish_reason`, the usage chunk (empty `choices`) when asked, then `data: [DONE]`.
 *
 * The response waits for the first token: a reply that fails before it (no passage search, the
 * model provider down) is answered with OpenAI's error shape and status rather than a 200 that
 * then carries an error. A failure after it is one `data: {"error": {…}}` line, then the stream
 * closes without [DONE] (what vLLM and OpenAI send; the SDKs raise it). A first token that takes
 * longer than the keep-alive interval does not hold the connection silent: at the shared
 * keep-alive's first ping the 200 and the role chunk go out, the ping after them.
 */
import type { StreamEvent } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";
import { frame, terminalStatus } from "../http/sse.ts";
import type { FinalReply, ReplyStream } from "../replies/index.ts";
import { type CitationStyle, CiteStream } from "./citations.ts";
import { annotated, completionId, finishReason, usageOf } from "./completion.ts";
import { openAiError } from "./errors.ts";
import { ReplySse } from "./reply-sse.ts";

export interface StreamOptions {
  model: string;
  created: number;
  includeUsage: boolean;
  citations: CitationStyle;
  headers: Record<string, string>;
  titles(urls: string[]): Promise<Map<string, string>>;
}

/** Resolves with the streaming response once the first token (or the end) is there; rejects on an early failure. */
export function completionStream(stream: ReplyStream, o: StreamOptions): Promise<Response> {
  return new Promise((resolve, reject) => void new CompletionStream(stream, o, resolve, reject));
}

/** One streamed completion: the stream's reader and the writer's hooks. */
class CompletionStream extends ReplySse {
  private id = "";
  private readonly cites: CiteStream;

  constructor(
    stream: ReplyStream,
    private readonly o: StreamOptions,
    resolve: (r: Response) => void,
    reject: (error: unknown) => void,
  ) {
    super(stream, o.headers, resolve, reject);
    this.cites = new CiteStream(o.citations);
  }

  private chunk(delta: object, finish: string | null = null): string {
    const { created, model } = this.o;
    const choices = [{ index: 0, delta, logprobs: null, finish_reason: finish }];
    return frame(JSON.stringify({ id: this.id, object: "chat.completion.chunk", created, model, choices }));
  }

  protected async handle(e: StreamEvent, result: FinalReply | ApiError | null): Promise<void> {
    if (this.writer.closed) return;
    if (e.type === "start") {
      this.id = completionId(e.message_id);
      this.writer.write(this.chunk({ role: "assistant", content: "", refusal: null }));
    } else if (e.type === "token") {
      this.respond();
      this.content(this.cites.push(e.content).text);
    } else if (e.type === "sources") {
      this.content(this.cites.grow(e.sources).text);
    } else if (result instanceof ApiError) {
      if (!this.started) return this.fail(result);
      this.writer.write(frame(JSON.stringify(openAiError(result.toPayload()))), 1, terminalStatus(e));
      this.close();
    } else if (result) {
      await this.finish(result);
    }
  }

  private content(text: string): void {
    if (!text) return;
    this.respond();
    this.writer.write(this.chunk({ content: text }));
  }

  private async finish(r: FinalReply): Promise<void> {
    this.respond();
    this.content(this.cites.end().text);
    const titles = await this.o.titles(r.sources).catch(() => new Map<string, string>());
    const { annotations } = annotated(r, titles, this.o.citations);
    if (annotations.length) this.writer.write(this.chunk({ annotations }));
    this.writer.write(this.chunk({}, finishReason(r.status)));
    if (this.o.includeUsage) {
      const { created, model } = this.o;
      const usage = {
        id: this.id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [],
        usage: usageOf(r.usage),
      };
      this.writer.write(frame(JSON.stringify(usage)));
    }
    this.writer.write(frame("[DONE]"), 1, r.status);
    this.close();
  }
}

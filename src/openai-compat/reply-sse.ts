/**
 * What both streamed OpenAI answers (Chat Completions' chunks, the Responses API's events) do
 * with a reply's stream, whatever frames they write: fold its events (replies/ ReplyFold) and
 * handle them one after another (an annotation needs a title lookup), start the HTTP response
 * at the first token or at the keep-alive's first ping, and answer a failure before that as an
 * ordinary error (OpenAI's shape) instead of a 200 that then carries an error.
 */
import type { StreamEvent } from "../contract/events.ts";
import type { ApiError } from "../http/errors.ts";
import { SseWriter, type WriterHooks } from "../http/sse.ts";
import { type FinalReply, ReplyFold, type ReplyStream } from "../replies/index.ts";

export abstract class ReplySse implements WriterHooks {
  protected readonly writer: SseWriter;
  protected started = false;
  private readonly fold = new ReplyFold();
  private readonly unsubscribe: () => void;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    stream: ReplyStream,
    private readonly headers: Record<string, string>,
    private readonly resolve: (r: Response) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.writer = new SseWriter(stream.keepAlive, this);
    this.unsubscribe = stream.subscribe((e) => {
      const result = this.fold.add(e);
      this.chain = this.chain
        .then(() => this.handle(e.event, result))
        .catch((error) => (this.started ? this.close() : this.fail(error)));
    });
  }

  /** One event of the reply, with what the fold made of it so far (the final reply, or its failure). */
  protected abstract handle(e: StreamEvent, result: FinalReply | ApiError | null): Promise<void>;

  /** The client left: the reply goes on and is stored. */
  cancel(): void {
    this.unsubscribe();
  }

  /** A quiet first token: the response starts, so the keep-alive's ping has a stream to go into. */
  ping(): void {
    this.respond();
  }

  protected respond(): void {
    if (this.started) return;
    this.started = true;
    this.resolve(this.writer.response(this.headers));
  }

  protected close(): void {
    this.unsubscribe();
    this.writer.close();
  }

  /** A failure before the response started: OpenAI's error answer instead of a stream. */
  protected fail(error: unknown): void {
    this.close();
    this.reject(error);
  }
}

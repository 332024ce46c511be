/**
 * The streamed Response: the reply's stream translated into the Responses API's events, each
 * `event: <type>` and `data: {type, sequence_number, …}`, in OpenAI's order: response.created,
 * response.in_progress, response.output_item.added, response.content_part.added, then
 * response.output_text.delta per token, and at the end response.output_text.annotation.added per
 * citation, response.output_text.done, response.content_part.done, response.output_item.done and
 * response.completed (response.incomplete when an output cap or a stop ended it); a failure after
 * the first token is response.failed. As for Chat Completions (stream.ts), the response waits for
 * the first token, so a failure before it is an ordinary error answer in OpenAI's shape.
 */
import type { StreamEvent } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";
import { terminalStatus } from "../http/sse.ts";
import type { FinalReply, ReplyStream } from "../replies/index.ts";
import type { CitationStyle } from "./citations.ts";
import { ReplySse } from "./reply-sse.ts";
import { type Echo, outputMessage, outputText, type ResponseParts, responseOf } from "./response-object.ts";

export interface ResponseStreamOptions {
  model: string;
  createdAt: Date;
  citations: CitationStyle;
  echo: Echo;
  headers: Record<string, string>;
  titles(urls: string[]): Promise<Map<string, string>>;
  /** Runs once the reply has ended, before the last event (`store: false` forgets it there). */
  ended(): Promise<void>;
}

export function responseStream(stream: ReplyStream, o: ResponseStreamOptions): Promise<Response> {
  return new Promise((resolve, reject) => void new ResponsesStream(stream, o, resolve, reject));
}

const EMPTY_PART = { type: "output_text", text: "", annotations: [], logprobs: [] };

class ResponsesStream extends ReplySse {
  private messageId = "";
  private sequence = 0;
  private sent = "";

  constructor(
    stream: ReplyStream,
    private readonly o: ResponseStreamOptions,
    resolve: (r: Response) => void,
    reject: (error: unknown) => void,
  ) {
    super(stream, o.headers, resolve, reject);
  }

  private emit(type: string, data: object, status?: string): void {
    const body = JSON.stringify({ type, sequence_number: this.sequence++, ...data });
    this.writer.write(`event: ${type}\ndata: ${body}\n\n`, 1, status);
  }

  private parts(r: Partial<Omit<ResponseParts, "status">> & Pick<ResponseParts, "status">): ResponseParts {
    const { model, createdAt, echo } = this.o;
    return { messageId: this.messageId, createdAt, model, echo, content: "", sources: [], usage: null, ...r };
  }

  private readonly at = () => ({ item_id: this.messageId, output_index: 0, content_index: 0 });

  protected async handle(e: StreamEvent, result: FinalReply | ApiError | null): Promise<void> {
    if (this.writer.closed) return;
    if (e.type === "start") {
      this.messageId = e.message_id;
      const response = responseOf(this.parts({ status: "in_progress" }), null);
      this.emit("response.created", { response });
      this.emit("response.in_progress", { response });
      this.emit("response.output_item.added", { output_index: 0, item: outputMessage(this.messageId, "in_progress") });
      this.emit("response.content_part.added", { ...this.at(), part: EMPTY_PART });
    } else if (e.type === "token") {
      this.respond();
      this.delta(this.o.citations === "links" ? this.hold.push(e.content) : e.content);
    } else if (result instanceof ApiError) {
      if (!this.started) return this.fail(result);
      const error = { code: result.code, message: result.message };
      const part = outputText(this.sent, [], new Map(), "markers");
      await this.o.ended().catch(() => undefined);
      const response = responseOf(this.parts({ status: "failed", content: this.sent, error }), part);
      this.emit("response.failed", { response }, terminalStatus(e));
      this.close();
    } else if (result) {
      await this.finish(result);
    }
  }

  private delta(text: string): void {
    if (!text) return;
    this.sent += text;
    this.emit("response.output_text.delta", { ...this.at(), delta: text, logprobs: [] });
  }

  private async finish(r: FinalReply): Promise<void> {
    this.respond();
    const titles = await this.o.titles(r.sources).catch(() => new Map<string, string>());
    const part = outputText(r.content, r.sources, titles, this.o.citations);
    this.delta(part.text.slice(this.sent.length));
    for (const [i, annotation] of part.annotations.entries())
      this.emit("response.output_text.annotation.added", { ...this.at(), annotation_index: i, annotation });
    this.emit("response.output_text.done", { ...this.at(), text: part.text, logprobs: [] });
    this.emit("response.content_part.done", { ...this.at(), part });
    const { content, sources, status, usage } = r;
    const response = responseOf(this.parts({ content, sources, status, usage }), part);
    this.emit("response.output_item.done", { output_index: 0, item: response.output[0] });
    await this.o.ended().catch(() => undefined);
    const last = response.status === "completed" ? "response.completed" : "response.incomplete";
    this.emit(last, { response }, r.status);
    this.close();
  }
}

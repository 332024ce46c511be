/**
 * The streamed Response: the reply's stream translated into the Responses API's events, each
 * `event: <type>` and `data: {type, sequence_number, …}`, in OpenAI's order: response.created,
 * response.in_progress, response.output_item.added, response.content_part.added, then
 * response.output_text.delta per token (a citation marker held only until its source is known:
 * citations.ts), response.output_text.annotation.added per citation right after the delta that
 * sends it, then at the end response.output_text.done, response.content_part.done, response.output_item.done and
 * response.completed (response.incomplete when an output cap or a stop ended it); a failure after
 * the first token is response.failed. As for Chat Completions (stream.ts), the response waits for
 * the first token, so a failure before it is an ordinary error answer in OpenAI's shape.
 */
import type { StreamEvent } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";
import { terminalStatus } from "../http/sse.ts";
import type { FinalReply, ReplyStream } from "../replies/index.ts";
import { type CitationStyle, CiteStream, type Released } from "./citations.ts";
import { ReplySse } from "./reply-sse.ts";
import {
  annotationOf,
  type Echo,
  outputMessage,
  outputText,
  type ResponseParts,
  responseOf,
} from "./response-object.ts";

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
  /** The annotations sent so far (a failed response's part keeps them with the text sent). */
  private readonly annotations: ReturnType<typeof annotationOf>[] = [];
  /** The sources' titles, looked up as the sources arrive (each URL once). */
  private readonly titles = new Map<string, string>();
  private readonly looked = new Set<string>();
  private readonly cites: CiteStream;

  constructor(
    stream: ReplyStream,
    private readonly o: ResponseStreamOptions,
    resolve: (r: Response) => void,
    reject: (error: unknown) => void,
  ) {
    super(stream, o.headers, resolve, reject);
    this.cites = new CiteStream(o.citations, this.titles);
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
      this.send(this.cites.push(e.content));
    } else if (e.type === "sources") {
      await this.lookUp(e.sources);
      this.send(this.cites.grow(e.sources));
    } else if (result instanceof ApiError) {
      if (!this.started) return this.fail(result);
      const error = { code: result.code, message: result.message };
      const part = { ...outputText(this.sent, [], new Map(), "markers"), annotations: this.annotations };
      await this.o.ended().catch(() => undefined);
      const response = responseOf(this.parts({ status: "failed", content: this.sent, error }), part);
      this.emit("response.failed", { response }, terminalStatus(e));
      this.close();
    } else if (result) {
      await this.finish(result);
    }
  }

  /** Released text as a delta, then the annotation of each citation it completed. */
  private send({ text, citations }: Released): void {
    if (text) {
      this.respond();
      this.sent += text;
      this.emit("response.output_text.delta", { ...this.at(), delta: text, logprobs: [] });
    }
    for (const c of citations) {
      const annotation = annotationOf(c);
      const index = this.annotations.push(annotation) - 1;
      this.emit("response.output_text.annotation.added", { ...this.at(), annotation_index: index, annotation });
    }
  }

  private async lookUp(urls: string[]): Promise<void> {
    const fresh = urls.filter((u) => !this.looked.has(u));
    if (fresh.length === 0) return;
    for (const u of fresh) this.looked.add(u);
    const found = await this.o.titles(fresh).catch(() => new Map<string, string>());
    for (const [url, title] of found) this.titles.set(url, title);
  }

  private async finish(r: FinalReply): Promise<void> {
    this.respond();
    await this.lookUp(r.sources);
    this.send(this.cites.end());
    // The same text and annotations as the answer not streamed (responses.ts): `cite` over the final reply.
    const part = outputText(r.content, r.sources, this.titles, this.o.citations);
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

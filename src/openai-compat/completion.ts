/**
 * A Parley reply in Chat Completions form. The reply's events (start, token…, sources, end |
 * error), from the run or the database, become one `chat.completion` or a stream of
 * `chat.completion.chunk`s; its sources become `url_citation` annotations, one per `[k]` marker
 * (`[k]` is `sources[k-1]`: chat/ and the model agent guarantee it).
 */
import type { StreamEvent } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";

/** OpenAI's url_citation annotation: where in `content` a source is cited. */
export interface UrlCitation {
  type: "url_citation";
  url_citation: { url: string; title: string; start_index: number; end_index: number };
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What the stream's events add up to. */
export interface Outcome {
  conversationId: string;
  messageId: string;
  content: string;
  sources: string[];
  /** `end`'s status: completed, stopped, or (a local output cap) length. */
  status: string;
  usage: CompletionUsage;
}

export const completionId = (messageId: string) => `chatcmpl-${messageId}`;

/** finish_reason: `length` when the reply was cut by an output cap; else `stop` (a stopped reply too). */
export const finishReason = (status: string) => (status === "length" ? "length" : "stop");

export function usageOf(u: { input_tokens: number | null; output_tokens: number | null } | null): CompletionUsage {
  const prompt = u?.input_tokens ?? 0;
  const completion = u?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** One annotation per `[k]` marker of `content` that names a source. */
export function annotationsOf(content: string, sources: string[], titles: Map<string, string>): UrlCitation[] {
  const out: UrlCitation[] = [];
  for (const m of content.matchAll(/\[(\d+)\]/g)) {
    const url = sources[Number(m[1]) - 1];
    if (url === undefined) continue;
    out.push({
      type: "url_citation",
      url_citation: { url, title: titles.get(url) ?? url, start_index: m.index, end_index: m.index + m[0].length },
    });
  }
  return out;
}

/** The ApiError an `error` event carries, as thrown (status and OpenAI type from its code). */
export const errorOf = (e: Extract<StreamEvent, { type: "error" }>) => new ApiError(e.error.code, e.error.message);

/**
 * Folds a reply's events into its outcome. `onEvent` sees each first (the stream writes them);
 * the promise settles at the terminal event: the outcome, or the error it carries.
 */
export class Accumulator {
  private conversationId = "";
  private messageId = "";
  private content = "";
  private sources: string[] = [];

  add(e: StreamEvent): Outcome | ApiError | null {
    switch (e.type) {
      case "start":
        this.conversationId = e.conversation_id;
        this.messageId = e.message_id;
        return null;
      case "token":
        this.content += e.content;
        return null;
      case "sources":
        this.sources = e.sources;
        return null;
      case "error":
        return errorOf(e);
      case "end":
        return {
          conversationId: this.conversationId,
          messageId: this.messageId || e.message_id,
          content: this.content,
          sources: this.sources,
          status: e.status,
          usage: usageOf(e.usage),
        };
    }
  }

  get text(): string {
    return this.content;
  }

  get cited(): string[] {
    return this.sources;
  }
}

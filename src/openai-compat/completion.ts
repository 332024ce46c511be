/**
 * A Parley reply in Chat Completions form. The reply's stream (replies/stream.ts), folded to its
 * final form, becomes one `chat.completion`, or translated event by event a stream of
 * `chat.completion.chunk`s (stream.ts); its sources become Markdown links and `url_citation`
 * annotations, one per `[k]` marker (citations.ts; `[k]` is `sources[k-1]`: chat/ and the
 * model agent guarantee it).
 */
import type { Usage } from "../contract/events.ts";
import type { FinalReply } from "../replies/index.ts";
import { type CitationStyle, cite } from "./citations.ts";

/** OpenAI's url_citation annotation: where in `content` a source is cited. */
export interface UrlCitation {
  type: "url_citation";
  url_citation: { url: string; title: string; start_index: number; end_index: number };
}

export const completionId = (messageId: string) => `chatcmpl-${messageId}`;

/** finish_reason: `length` when the reply was cut by an output cap; else `stop` (a stopped reply too). */
export const finishReason = (status: string): "length" | "stop" => (status === "length" ? "length" : "stop");

export function usageOf(u: Usage | null) {
  const prompt = u?.input_tokens ?? 0;
  const completion = u?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The text the client receives, and its annotations (citations.ts). */
export function annotated(
  r: Pick<FinalReply, "content" | "sources">,
  titles: Map<string, string>,
  style: CitationStyle,
) {
  const { text, citations } = cite(r.content, r.sources, titles, style);
  const annotations: UrlCitation[] = citations.map((c) => ({
    type: "url_citation",
    url_citation: { url: c.url, title: c.title, start_index: c.start, end_index: c.end },
  }));
  return { text, annotations };
}

/** The `chat.completion` of a final reply; `titles`: its sources' document titles. */
export function completionOf(
  r: FinalReply,
  model: string,
  created: number,
  titles: Map<string, string>,
  style: CitationStyle,
) {
  const { text, annotations } = annotated(r, titles, style);
  return {
    id: completionId(r.id),
    object: "chat.completion" as const,
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant" as const,
          content: text,
          refusal: null,
          annotations,
        },
        logprobs: null,
        finish_reason: finishReason(r.status),
      },
    ],
    usage: usageOf(r.usage),
  };
}

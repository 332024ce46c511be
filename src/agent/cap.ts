/**
 * A reply's local limits, enforced on the agent's stream itself: a provider
 * may ignore the max_tokens it is sent (one streamed 20,000 tokens; one sent a single 2 MB
 * token). The stream is cut when it reaches `maxTokens` text pieces or `maxBytes` UTF-8 bytes
 * (the piece that crosses it is cut at a code point), then ends with `{ type: "finish", reason:
 * "length" }`: the reply is stored as status `length`, like OpenAI's finish_reason. Leaving the
 * inner stream early closes it, which aborts the upstream request.
 * A text piece counts as one token: providers stream about one token per piece (OpenAI) or a
 * few (Anthropic), so this cap is never tighter than the provider's own count.
 * Cutting aborts the upstream request before the provider's final counts arrive, so a cut reply
 * reports what it streamed: `output_tokens` = the pieces sent (a lower bound of the provider's
 * count, in the cap's own unit), `input_tokens` null (unknown). It counts in usage and against
 * the key's token budget like any reply's.
 */
import type { AgentChunk } from "./types.ts";

export interface ReplyLimits {
  maxTokens: number;
  maxBytes: number;
}

/** The reply's chunks, cut at `limits`. */
export async function* capReply(chunks: AsyncIterable<AgentChunk>, limits: ReplyLimits): AsyncGenerator<AgentChunk> {
  let tokens = 0;
  let bytes = 0;
  let reported = false;
  const encoder = new TextEncoder();
  const finishAtLength = (): AgentChunk[] => [
    ...(reported ? [] : [{ type: "usage" as const, usage: { input_tokens: null, output_tokens: tokens } }]),
    { type: "finish", reason: "length" },
  ];
  for await (const chunk of chunks) {
    if (chunk.type !== "token") {
      if (chunk.type === "usage") reported = true;
      yield chunk;
      continue;
    }
    const size = encoder.encode(chunk.content).length;
    if (bytes + size > limits.maxBytes) {
      const head = utf8Prefix(chunk.content, limits.maxBytes - bytes);
      if (head) {
        tokens++;
        yield { type: "token", content: head };
      }
      yield* finishAtLength();
      return;
    }
    bytes += size;
    tokens++;
    yield chunk;
    if (tokens >= limits.maxTokens) {
      yield* finishAtLength();
      return;
    }
  }
}

/** The longest prefix of `text` of at most `max` UTF-8 bytes, cut between code points. */
function utf8Prefix(text: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const size = ch.codePointAt(0)! < 0x80 ? 1 : ch.codePointAt(0)! < 0x800 ? 2 : ch.codePointAt(0)! < 0x10000 ? 3 : 4;
    if (bytes + size > max) break;
    bytes += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * A reply as the metrics see it: time to first token, then (when it has ended) its terminal
 * status, the tokens the model reported and, for a failed model call, the failure's kind. It
 * reads the reply's stream only until the first token, so a long reply costs one callback, not
 * one per token.
 */
import type { Metrics } from "../metrics/index.ts";
import type { ReplyHandle, ReplyStream } from "../replies/index.ts";

export function observeReply(
  stream: ReplyStream,
  done: ReplyHandle["done"],
  metrics: Metrics,
  startedAt: number,
): void {
  stream.subscribe(({ event }) => {
    if (event.type === "token") metrics.ttft.observe((performance.now() - startedAt) / 1000);
    return event.type === "token"; // enough; the terminal event ends the stream anyway
  });
  void done.then((outcome) => {
    if (outcome.ok) {
      metrics.replies.inc({ status: outcome.status });
      metrics.certainty.inc({ certainty: outcome.certainty });
      if (outcome.usage?.input_tokens) metrics.tokens.inc({ direction: "input" }, outcome.usage.input_tokens);
      if (outcome.usage?.output_tokens) metrics.tokens.inc({ direction: "output" }, outcome.usage.output_tokens);
      return;
    }
    metrics.replies.inc({ status: "failed" });
    const code = outcome.error.code;
    if (code === "upstream_error" || code === "upstream_timeout") {
      const kind = (outcome.error.cause as { kind?: unknown } | undefined)?.kind;
      metrics.modelErrors.inc({ kind: typeof kind === "string" ? kind : "other" });
    }
  });
}

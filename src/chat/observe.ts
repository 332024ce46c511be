/**
 * A reply as the metrics see it: time to first token, then (when it has ended) its terminal
 * status, the tokens the model reported and, for a failed model call, the failure's kind. It
 * listens only until the first token, so a long reply costs one callback, not one per token.
 */
import type { Metrics } from "../metrics/index.ts";
import type { Replies, ReplyHandle } from "../replies/index.ts";

export function observeReply(
  feed: ReturnType<Replies["feed"]>,
  done: ReplyHandle["done"],
  metrics: Metrics,
  startedAt: number,
): void {
  let seen = false;
  const off = feed.subscribe((e) => {
    if (seen || (e.event.type !== "token" && e.event.type !== "end" && e.event.type !== "error")) return;
    seen = true;
    if (e.event.type === "token") metrics.ttft.observe((performance.now() - startedAt) / 1000);
    queueMicrotask(() => off());
  });
  void done.then((outcome) => {
    if (outcome.ok) {
      metrics.replies.inc({ status: outcome.message.status });
      if (outcome.message.inputTokens) metrics.tokens.inc({ direction: "input" }, outcome.message.inputTokens);
      if (outcome.message.outputTokens) metrics.tokens.inc({ direction: "output" }, outcome.message.outputTokens);
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

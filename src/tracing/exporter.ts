/**
 * An OTLP/HTTP span exporter over `fetch`: the SDK's own JSON serializer (the OTLP JSON
 * encoding), sent with the Web-standard fetch, so it runs the same on Bun, in the compiled
 * binary and on Deno. (The SDK's exporter picks Node's `http` module on Bun and Deno, whose
 * package conditions say "node".) Failed exports are dropped, not retried: traces are best effort.
 */
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

/** How long one export may take before it is abandoned. */
const EXPORT_TIMEOUT_MS = 10_000;

export class FetchSpanExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const body = this.stopped ? undefined : JsonTraceSerializer.serializeRequest(spans);
    if (!body) {
      done({
        code: ExportResultCode.FAILED,
        error: new Error(this.stopped ? "exporter shut down" : "not serialisable"),
      });
      return;
    }
    const sent = fetch(this.url, {
      method: "POST",
      headers: { ...this.headers, "content-type": "application/json" },
      body: body as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    }).then(
      async (response) => {
        await response.arrayBuffer().catch(() => {});
        done(
          response.ok
            ? { code: ExportResultCode.SUCCESS }
            : { code: ExportResultCode.FAILED, error: new Error(`OTLP endpoint answered ${response.status}`) },
        );
      },
      (error) => done({ code: ExportResultCode.FAILED, error }),
    );
    this.pending.add(sent);
    sent.finally(() => {
      this.pending.delete(sent);
    });
  }

  /** Waits for the exports under way. */
  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
  }
}

/**
 * An OpenAI-compatible embeddings client (POST {baseUrl}/embeddings): OpenAI, Ollama, vLLM and
 * TEI all speak it. Texts go in batches; a batch that fails with a network error, a timeout, a
 * 408/409/429 or a 5xx is retried a bounded number of times with backoff (Retry-After is
 * honoured up to the backoff cap). Web-standard fetch only.
 */

/** What the embeddings model is and how to reach it (EMBEDDINGS_* in the environment). */
export interface EmbeddingsConfig {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** The vectors' length: sent as `dimensions` (models that can shorten them) and checked. */
  dimensions: number;
  /** Texts per request. */
  batchSize?: number;
  /** Attempts per batch at ingest (the first one included). */
  maxAttempts?: number;
  /** The first retry's wait without a Retry-After (ms); it doubles per retry, up to 8 s. Default 250. */
  retryBaseMs?: number;
  /** Milliseconds one request may take. */
  timeoutMs?: number;
  /** Send `dimensions` in the request (OpenAI text-embedding-3-*); others ignore or reject it. */
  sendDimensions?: boolean;
}

/** Embeds texts; `embed` returns one vector per text, in order, or throws EmbeddingsError. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  embed(texts: string[], options?: { attempts?: number; signal?: AbortSignal }): Promise<number[][]>;
}

/** The embeddings model failed (after its retries); the message never holds the texts or the key. */
export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "EmbeddingsError";
  }
}

const RETRYABLE = new Set([408, 409, 429]);
const MAX_BACKOFF_MS = 8_000;

export function createEmbedder(config: EmbeddingsConfig): Embedder {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const batchSize = config.batchSize ?? 64;
  const timeoutMs = config.timeoutMs ?? 30_000;
  const retryBaseMs = config.retryBaseMs ?? 250;

  async function request(input: string[], signal?: AbortSignal): Promise<number[][]> {
    const body: Record<string, unknown> = { model: config.model, input, encoding_format: "float" };
    if (config.sendDimensions) body.dimensions = config.dimensions;
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      const why = timeout.aborted ? `timed out after ${timeoutMs} ms` : (error as Error).name;
      throw Object.assign(new EmbeddingsError(`embeddings request to ${url} failed: ${why}`), {
        retry: !signal?.aborted,
      });
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw Object.assign(new EmbeddingsError(`embeddings model answered ${res.status} (${url})`, res.status), {
        retry: RETRYABLE.has(res.status) || res.status >= 500,
        retryAfterMs: Number(res.headers.get("retry-after")) * 1000 || undefined,
      });
    }
    const json = (await res.json().catch(() => null)) as { data?: { index?: number; embedding?: unknown }[] } | null;
    const data = json?.data;
    if (!Array.isArray(data) || data.length !== input.length)
      throw new EmbeddingsError(`embeddings model returned ${data?.length ?? "no"} vectors for ${input.length} texts`);
    const out: number[][] = new Array(input.length);
    for (const [i, d] of data.entries()) {
      const v = d.embedding;
      if (
        !Array.isArray(v) ||
        v.length !== config.dimensions ||
        !v.every((x) => typeof x === "number" && Number.isFinite(x))
      )
        throw new EmbeddingsError(
          `embeddings model returned a vector of ${Array.isArray(v) ? v.length : "no"} numbers; EMBEDDINGS_DIMENSIONS is ${config.dimensions}`,
        );
      out[typeof d.index === "number" ? d.index : i] = v as number[];
    }
    return out;
  }

  return {
    model: config.model,
    dimensions: config.dimensions,
    async embed(texts, { attempts = config.maxAttempts ?? 4, signal } = {}) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        for (let attempt = 1; ; attempt++) {
          try {
            out.push(...(await request(batch, signal)));
            break;
          } catch (error) {
            const e = error as EmbeddingsError & { retry?: boolean; retryAfterMs?: number };
            if (!e.retry || attempt >= attempts) throw error;
            const backoff = Math.min(MAX_BACKOFF_MS, e.retryAfterMs ?? retryBaseMs * 2 ** (attempt - 1));
            await new Promise((r) => setTimeout(r, backoff));
          }
        }
      }
      return out;
    },
  };
}

/**
 * A loopback server speaking OpenAI's `POST /v1/embeddings` as api.openai.com does: request
 * `{model, input: string | string[], encoding_format?: "float" | "base64", dimensions?}`,
 * response `{"object":"list","data":[{"object":"embedding","index":i,"embedding":[…]}],
 * "model":…,"usage":{"prompt_tokens":n,"total_tokens":n}}` (base64: little-endian float32, as
 * the official SDK asks by default), errors as `{"error":{message,type,param,code}}`.
 *
 * Vectors are deterministic feature hashing (`hashingVector`): each word of the text adds ±1
 * to one of `dimensions` slots chosen by its FNV-1a hash, then the vector is L2-normalised —
 * so cosine similarity measures shared words, and a test can compute the expected ranking.
 */
export function hashingVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    let h = 0x811c9dc5;
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
    v[h % dimensions]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) v[0] = 1; // an empty text still has a direction (a zero vector has no cosine)
  return norm === 0 ? v : v.map((x) => x / norm);
}

export interface FakeEmbeddings {
  /** Base URL to configure (ends in /v1). */
  url: string;
  /** Requests received (bodies as parsed JSON), and how many inputs each carried. */
  requests: { model: string; inputs: number; encoding: string; texts: string[] }[];
  /** The next `n` requests fail with `status` (e.g. 500, 429). */
  failNext(n: number, status?: number): void;
  /** Every request fails (the model is down) until reset with `down(false)`. */
  down(on: boolean): void;
  stop(): Promise<void>;
}

export function startFakeEmbeddings({
  dimensions = 64,
  apiKey,
}: {
  dimensions?: number;
  apiKey?: string;
} = {}): FakeEmbeddings {
  const requests: FakeEmbeddings["requests"] = [];
  let failures: { n: number; status: number } = { n: 0, status: 500 };
  let isDown = false;
  const error = (status: number, message: string, type: string, code: string | null) =>
    Response.json({ error: { message, type, param: null, code } }, { status });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== "/v1/embeddings")
        return error(404, `Invalid URL (${req.method} ${path})`, "invalid_request_error", null);
      if (apiKey && req.headers.get("authorization") !== `Bearer ${apiKey}`)
        return error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      const body = (await req.json().catch(() => null)) as {
        model?: unknown;
        input?: unknown;
        encoding_format?: unknown;
        dimensions?: unknown;
      } | null;
      const inputs = typeof body?.input === "string" ? [body.input] : body?.input;
      if (
        !body ||
        typeof body.model !== "string" ||
        !Array.isArray(inputs) ||
        !inputs.every((s) => typeof s === "string")
      )
        return error(400, "'input' must be a string or an array of strings", "invalid_request_error", null);
      const encoding = body.encoding_format === "base64" ? "base64" : "float";
      requests.push({ model: body.model, inputs: inputs.length, encoding, texts: inputs });
      if (isDown) return error(503, "The engine is currently overloaded, please try again later", "server_error", null);
      if (failures.n > 0) {
        failures.n--;
        return error(failures.status, "The server had an error while processing your request.", "server_error", null);
      }
      const dims = typeof body.dimensions === "number" ? body.dimensions : dimensions;
      const tokens = inputs.reduce((n, s) => n + (s.match(/\S+/g)?.length ?? 0), 0);
      const data = inputs.map((s, index) => {
        const v = hashingVector(s, dims);
        return {
          object: "embedding",
          index,
          embedding: encoding === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v,
        };
      });
      return new Response(
        JSON.stringify({
          object: "list",
          data,
          model: body.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
        { headers: { "content-type": "application/json", "openai-processing-ms": "1", "x-request-id": "req_fake" } },
      );
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    failNext: (n, status = 500) => {
      failures = { n, status };
    },
    down: (on) => {
      isDown = on;
    },
    stop: () => server.stop(true),
  };
}

/** The error every client call throws for a non-2xx answer (or a stream cut short). */

/** A failed API call: the server's error code, HTTP status, request id and, on 429, Retry-After. */
export class ParleyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { type?: string; param?: string; requestId?: string; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = "ParleyError";
  }

  get type(): string | undefined {
    return this.details.type;
  }
  get param(): string | undefined {
    return this.details.param;
  }
  get requestId(): string | undefined {
    return this.details.requestId;
  }
  /** Seconds to wait before retrying (429 only). */
  get retryAfter(): number | undefined {
    return this.details.retryAfter;
  }

  /** Builds the error from a non-2xx response, whatever its body. */
  static async fromResponse(res: Response): Promise<ParleyError> {
    const text = await res.text().catch(() => "");
    let body: { error?: { code?: string; message?: string; type?: string; param?: string }; request_id?: string } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not our JSON error body (a proxy's page, say): keep the status and the text
    }
    const retry = Number(res.headers.get("retry-after"));
    return new ParleyError(
      res.status,
      body.error?.code ?? "http_error",
      body.error?.message ?? (text.slice(0, 200) || `HTTP ${res.status}`),
      {
        type: body.error?.type,
        param: body.error?.param,
        requestId: body.request_id ?? res.headers.get("x-request-id") ?? undefined,
        retryAfter: Number.isFinite(retry) && res.headers.has("retry-after") ? retry : undefined,
      },
    );
  }
}

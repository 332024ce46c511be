/**
 * Loopback model providers for tests and the bench: real HTTP servers (Bun.serve, port 0; the
 * handler alone is Web-standard, so Deno.serve can run it too — tests/deno/llm-smoke.ts) that
 * answer each request from a script of replies and speak the provider's protocol byte for byte
 * (fake-openai.ts, fake-anthropic.ts): streamed replies (`stream: true`) as SSE, the others as
 * one JSON body, and tool calls in each protocol's own form. Every request is recorded — headers,
 * JSON body, and whether the client went away before the reply ended — so tests assert what the
 * provider got.
 */

/** What the fake does with one request. Unset fields: a normal, complete reply. */
export interface FakeReply {
  /** Text deltas, in order. */
  tokens?: string[];
  /** Reported token counts; null: none reported (OpenAI: no usage chunk even when asked). */
  usage?: { input: number; output: number } | null;
  /** Answer with this HTTP status and a provider-shaped error body instead of a stream. */
  status?: number;
  /** The error message in that body (providers often echo the key: tests check it never leaks). */
  errorMessage?: string;
  headers?: Record<string, string>;
  /** Wait this long before the stream's first text delta (the headers go out at once). */
  firstTokenDelayMs?: number;
  /** Wait this long before each later delta. */
  tokenDelayMs?: number;
  /** After this many deltas, send the provider's in-stream error event and end the stream. */
  errorAfter?: number;
  /** After this many deltas, cut the connection without ending the HTTP response. */
  disconnectAfter?: number;
  /** After this many deltas, end the response cleanly but without the protocol's final chunk. */
  truncateAfter?: number;
  /** The stream ends at the provider's output cap (OpenAI `length`, Anthropic `max_tokens`). */
  cutShort?: boolean;
  /**
   * The model calls these tools (after its tokens, if any; no default tokens then) and stops for
   * their results — as a model does only when the request declares tools and does not forbid
   * them (`tool_choice` none): otherwise the reply is its text (`toolCallsFor`).
   */
  toolCalls?: { name: string; input: unknown }[];
}

/** One request as the fake received it. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  /** Set once the client closed the connection before the reply ended. */
  aborted: boolean;
  /** performance.now() when the request arrived. */
  at: number;
}

/** How a protocol writes a reply; `send` frames and writes one SSE event. */
export interface Protocol {
  path: string;
  errorBody(status: number, message: string): unknown;
  /** The whole reply as one JSON body, for a request without `stream: true`. */
  complete(reply: FakeReply, body: Received["body"]): unknown;
  /** Writes the reply's events; returns early (and the caller ends or cuts the stream) on faults. */
  stream(reply: FakeReply, body: any, w: Writer): Promise<void>;
}

export interface Writer {
  event(data: unknown, name?: string): void;
  raw(text: string): void;
  /** Waits `ms`, or returns at once when 0/undefined. */
  pause(ms?: number): Promise<void>;
  /** Cuts the connection (an abrupt disconnect, no end of response) once what was sent is out. */
  cut(): Promise<void>;
  readonly cutOff: boolean;
}

export interface FakeProvider {
  url: string;
  port: number;
  received: Received[];
  /** Replies for the next requests, in order; after them, `fallback`. */
  script: FakeReply[];
  fallback: FakeReply;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function startFake(protocol: Protocol, fallback: FakeReply = {}): FakeProvider {
  const fake: FakeProvider = {
    url: "",
    port: 0,
    received: [],
    script: [],
    fallback,
    stop: async () => void (await server.stop(true)),
  };
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: fakeHandler(protocol, fake) });
  fake.port = server.port!;
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

/** The fake's request handler (Web-standard): answers from `fake.script`, records into `fake.received`. */
export function fakeHandler(protocol: Protocol, fake: Pick<FakeProvider, "received" | "script" | "fallback">) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const body = await req.json().catch(() => null);
    const rec: Received = {
      method: req.method,
      path: url.pathname,
      headers: Object.fromEntries(req.headers),
      body,
      aborted: false,
      at: performance.now(),
    };
    fake.received.push(rec);
    req.signal.addEventListener("abort", () => (rec.aborted = true));
    const reply = fake.script.shift() ?? fake.fallback;
    if (req.method !== "POST" || !url.pathname.endsWith(protocol.path))
      return new Response("not found", { status: 404 });
    if (reply.status && reply.status >= 300) {
      const message = reply.errorMessage ?? `fake error ${reply.status}`;
      return Response.json(protocol.errorBody(reply.status, message), { status: reply.status, headers: reply.headers });
    }
    if (body?.stream !== true) {
      await sleep(reply.firstTokenDelayMs ?? 0);
      return Response.json(protocol.complete(reply, body), { headers: reply.headers });
    }
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let cutOff = false;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        rec.aborted = true;
      },
    });
    const w: Writer = {
      event(data, name) {
        this.raw(
          `${name ? `event: ${name}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
        );
      },
      raw(text) {
        if (!cutOff && !rec.aborted) controller.enqueue(encoder.encode(text));
      },
      pause: (ms) => (ms ? sleep(ms) : Promise.resolve()),
      async cut() {
        await sleep(20); // let the bytes already written reach the client first
        cutOff = true;
        // Erroring the body makes Bun drop the connection mid-response (no terminating chunk).
        controller.error(
          new Error("fake provider: connection cut on purpose (an abrupt-disconnect test; Bun prints this)"),
        );
      },
      get cutOff() {
        return cutOff;
      },
    };
    void protocol.stream(reply, body, w).then(() => {
      if (!cutOff && !rec.aborted) controller.close();
    });
    return new Response(stream, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...reply.headers },
    });
  };
}

/** The tool calls the model makes for this request: none unless it declares tools and allows them. */
export function toolCallsFor(
  reply: FakeReply,
  body: { tools?: unknown; tool_choice?: string | { type?: string } } | null,
): { name: string; input: unknown }[] {
  const choice = body?.tool_choice;
  const forbidden = choice === "none" || (typeof choice === "object" && choice.type === "none");
  return reply.toolCalls && Array.isArray(body?.tools) && body.tools.length > 0 && !forbidden ? reply.toolCalls : [];
}

/** The text deltas of a reply: with tool calls, only those it was given. */
export const tokensOf = (reply: FakeReply, calls: unknown[]): string[] =>
  reply.tokens ?? (calls.length ? [] : ["Hello", " from", " the", " fake", "."]);

/** A tool call's arguments as providers stream them: JSON text in a few pieces. */
export function jsonPieces(input: unknown): string[] {
  const json = JSON.stringify(input);
  const cut = Math.ceil(json.length / 3);
  return [json.slice(0, cut), json.slice(cut, 2 * cut), json.slice(2 * cut)].filter(Boolean);
}

/** Splits a text into deltas the way providers do: each word with the space before it. */
export const words = (text: string) => text.match(/\s*\S+/g) ?? [];

/** The wire as the client reads it: JSON bodies, events, and the errors of reading them. */
import { ParleyError, requestIdOf } from "./errors.ts";
import type { ChatEvent, Message } from "./types.ts";

export type Wire = Record<string, unknown>;

export const isWire = (v: unknown): v is Wire => typeof v === "object" && v !== null && !Array.isArray(v);

export const invalid = (res: Response, what: string) =>
  new ParleyError(res.status, "invalid_response", `Unexpected response from the server: ${what}.`, { requestId: requestIdOf(res) });

export const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A failure to get (or finish reading) a response, unless the caller aborted: a ParleyError. */
export function connectionError(error: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted || error instanceof ParleyError) return error;
  return new ParleyError(0, "connection_error", `Connection to the server failed: ${describe(error)}`, { cause: error });
}

/** A 2xx body as a JSON object, checked by `ok` (else `invalid_response`). */
export async function readJson<T extends Wire>(res: Response, ok: (v: Wire) => boolean, signal?: AbortSignal): Promise<T> {
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    throw connectionError(error, signal);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type");
    throw invalid(res, `expected JSON, got ${type ? `'${type}'` : "a body"} starting '${text.slice(0, 60)}'`);
  }
  if (!isWire(value) || !ok(value)) throw invalid(res, `JSON of an unexpected shape starting '${text.slice(0, 60)}'`);
  return value as T;
}

export function toEvent(e: Wire, id: string | undefined): ChatEvent {
  const seq = id !== undefined && /^\d+$/.test(id) ? { id: Number(id) } : {};
  switch (e.type) {
    case "start":
      return { ...seq, type: "start", conversationId: e.conversation_id as string, ...(typeof e.message_id === "string" ? { messageId: e.message_id } : {}) };
    case "end":
      return { ...seq, type: "end", messageId: e.message_id as string, ...(e.status === "completed" || e.status === "stopped" ? { status: e.status } : {}) };
    default:
      return { ...seq, ...e } as ChatEvent; // token, sources and error share the wire's field names
  }
}

export const toMessage = (m: Wire): Message => ({
  id: m.id as string,
  role: m.role as "user" | "assistant",
  content: m.content as string,
  sources: m.sources as string[],
  status: m.status as Message["status"],
  createdAt: m.created_at as string,
});

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });


/** The wire as the client reads it: JSON bodies in camelCase, and the error for a body that is not the API's. */
import { ParleyError, requestIdOf } from "./errors.ts";
import type { Call } from "./transport.ts";
import type { ConversationSummary, Message, Pagination, Usage } from "./types.ts";

export type Wire = Record<string, unknown>;
export const isWire = (v: unknown): v is Wire => typeof v === "object" && v !== null && !Array.isArray(v);

export const invalid = (res: Response, what: string) =>
  new ParleyError(res.status, "invalid_response", `Unexpected response from the server: ${what}.`, {
    requestId: requestIdOf(res),
  });

/** A 2xx body as a JSON object, checked by `ok` (else `invalid_response`), read within the call's timeout. */
export async function readJson<T extends Wire>(call: Call, ok: (v: Wire) => boolean): Promise<T> {
  const { res } = call;
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    throw call.failure(error);
  } finally {
    call.end();
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

/** The wire's `usage` (snake_case, possibly absent from an older server) in camelCase. */
export const usage = (u: unknown): Usage | null => {
  if (!isWire(u)) return null;
  const n = (v: unknown) => (typeof v === "number" ? v : null);
  return { inputTokens: n(u.input_tokens), outputTokens: n(u.output_tokens) };
};

export const summary = (c: Wire): ConversationSummary => ({
  id: c.id as string,
  createdAt: c.created_at as string,
  updatedAt: c.updated_at as string,
  title: c.title as string,
  // Absent from servers before it was added.
  knowledgeBaseId: (c.knowledge_base_id as string | null | undefined) ?? null,
});

export const toMessage = (m: Wire): Message => ({
  id: m.id as string,
  role: m.role as Message["role"],
  content: m.content as string,
  sources: m.sources as string[],
  status: m.status as Message["status"],
  createdAt: m.created_at as string,
  usage: usage(m.usage),
  feedback: feedback(m.feedback),
});

/** A reply's rating; null when none (or from a server that predates feedback). */
const feedback = (f: unknown): Message["feedback"] =>
  isWire(f)
    ? {
        rating: f.rating as "up" | "down",
        comment: typeof f.comment === "string" ? f.comment : null,
        updatedAt: f.updated_at as string,
      }
    : null;

/** `{has_more, next_cursor}`; an older server without `pagination` on a read means "no more". */
export const pagination = (p: unknown): Pagination =>
  isWire(p)
    ? { hasMore: p.has_more === true, nextCursor: typeof p.next_cursor === "string" ? p.next_cursor : null }
    : { hasMore: false, nextCursor: null };

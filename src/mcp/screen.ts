/**
 * What /mcp checks before the SDK's transport sees a body, for two SDK behaviours a stateless,
 * JSON-answering server cannot live with:
 * - A `notifications/cancelled` in the same POST as the request it names aborts that request,
 *   and the SDK then sends no answer for it (as the spec asks) — while the transport waits for
 *   every answer of the POST before it responds: the request hangs. A stateless server has
 *   nothing in flight but the POST's own requests, so a cancellation among other messages is
 *   dropped (the spec lets a receiver ignore one); the request is answered.
 * - A request of a known method whose params do not fit its schema (`tools/call` with
 *   `arguments: []`) throws inside the SDK and comes back as -32603 Internal error, with the
 *   schema's dump as the message. It is an invalid-params error (-32602): the request is sent
 *   to the transport as a `ping` of the same id (so its headers, order and answer shape stay
 *   the transport's) and that answer is replaced by the error.
 */
import { isJSONRPCNotification, isJSONRPCRequest, specTypeSchemas } from "@modelcontextprotocol/server";

/** JSON-RPC's "Invalid params". */
const INVALID_PARAMS = -32602;
const ClientRequestSchema = specTypeSchemas.ClientRequest as unknown as {
  options: {
    safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
  }[];
};
type RequestSchema = (typeof ClientRequestSchema.options)[number];
/** Each request method the SDK knows, with its schema. */
const SCHEMAS = new Map<unknown, RequestSchema>(
  ClientRequestSchema.options.map((o) => [
    (o as unknown as { shape: { method: { value: string } } }).shape.method.value,
    o,
  ]),
);

type Id = string | number;
export interface Screened {
  body: unknown;
  /** Requests answered by us, by id: the message of their invalid-params error. */
  invalid: Map<Id, string>;
}

function invalidParams(message: unknown): string | null {
  const schema = isJSONRPCRequest(message) ? SCHEMAS.get(message.method) : undefined;
  if (!schema || !isJSONRPCRequest(message)) return null;
  const parsed = schema.safeParse(message);
  if (parsed.success || !parsed.error) return null;
  const where = parsed.error.issues.map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`);
  return `Invalid params for ${message.method}: ${[...new Set(where)].slice(0, 5).join("; ")}`;
}

export function screen(body: unknown): Screened {
  const invalid = new Map<Id, string>();
  const one = (message: unknown) => {
    const problem = invalidParams(message);
    if (problem === null || !isJSONRPCRequest(message)) return message;
    invalid.set(message.id, problem);
    return { jsonrpc: "2.0", id: message.id, method: "ping" };
  };
  if (!Array.isArray(body)) return { body: one(body), invalid };
  const kept =
    body.length > 1 ? body.filter((m) => !(isJSONRPCNotification(m) && m.method === "notifications/cancelled")) : body;
  return { body: kept.map(one), invalid };
}

/** The transport's answer with the screened requests' answers turned into their errors. */
export async function answered(response: Response, invalid: Map<Id, string>): Promise<Response> {
  if (invalid.size === 0 || response.status !== 200) return response;
  if (!response.headers.get("content-type")?.includes("application/json")) return response;
  const json = (await response.json()) as unknown;
  const fix = (a: { id?: Id; result?: unknown; error?: unknown }) => {
    const problem = a && a.id !== undefined ? invalid.get(a.id) : undefined;
    if (problem === undefined) return a;
    return { jsonrpc: "2.0", id: a.id, error: { code: INVALID_PARAMS, message: problem } };
  };
  const fixed = Array.isArray(json) ? json.map(fix) : fix(json as { id?: Id });
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(fixed), { status: 200, headers });
}

/**
 * JSON-RPC batches on /mcp. MCP revisions up to 2025-03-26 let a client POST an array of
 * messages (2025-06-18 removed batching; older clients still send them), and the SDK's
 * transport takes up to 100. A batch is no way around the key's limits: each request in it is
 * admitted like a request of its own — looked up, counted by the limiter, checked against the
 * token budget (auth/index.ts `admitAnother`) — the first by the POST's own admission. They
 * run one after another, in order, so the tokens of one call's reply count before the next
 * call is admitted, as for a client that waits for each answer. A refused call gets a JSON-RPC
 * error for its id carrying the refusal (code, Retry-After, the rate-limit headers); the calls
 * before it have answered, each one after it is admitted again (a minute may have freed up).
 */
import { isInitializeRequest, isJSONRPCRequest, isSpecType } from "@modelcontextprotocol/server";
import { type AdmissionDeps, admitAnother } from "../auth/index.ts";
import { CODES } from "../contract/errors.ts";
import { requestIdOf } from "../http/core.ts";
import { toApiError } from "../http/error-handler.ts";

/** The transport's own bound on a batch (not exported by the SDK): a longer one it refuses whole. */
const MAX_BATCH_SIZE = 100;

/** JSON-RPC's implementation-defined server error, as the SDK's transport uses for its own refusals. */
const SERVER_ERROR = -32000;

/**
 * The messages of a batch that holds more than one request, to be admitted and run one by one;
 * null for anything else (one message, a batch of at most one request, or one the transport
 * refuses whole: too long, a message that is not JSON-RPC, an initialize among others), which
 * goes to the transport as it came and is covered by the POST's own admission.
 */
export function batchOf(body: unknown): unknown[] | null {
  if (!Array.isArray(body) || body.length < 2 || body.length > MAX_BATCH_SIZE) return null;
  if (!body.every((m) => isSpecType.JSONRPCMessage(m)) || body.some(isInitializeRequest)) return null;
  return body.filter(isJSONRPCRequest).length > 1 ? body : null;
}

/** A refused call as its JSON-RPC answer: the API's error in `error.data`, with its headers. */
function refusal(id: unknown, error: unknown, request: Request) {
  const e = toApiError(error);
  const headers = e.options.headers ?? {};
  const retryAfter = headers["retry-after"];
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: SERVER_ERROR,
      message: `${e.code}: ${e.message}`,
      data: {
        type: CODES[e.code].type,
        code: e.code,
        status: e.status,
        ...(retryAfter ? { retry_after: Number(retryAfter) } : {}),
        headers,
        request_id: requestIdOf(request),
      },
    },
  };
}

/**
 * Runs `messages` one at a time through `run` (one message in, the transport's answer out),
 * each request after the first admitted first. The answers in order, as one JSON array; a
 * refusal of the transport itself (headers it does not take: the same for every message, so
 * the first one meets it) is returned as it is.
 */
export async function runBatch(
  deps: AdmissionDeps,
  request: Request,
  messages: unknown[],
  run: (message: unknown) => Promise<Response>,
): Promise<Response> {
  const answers: unknown[] = [];
  const headers = new Headers({ "content-type": "application/json" });
  let covered = true; // the POST's own admission covers the first request
  for (const message of messages) {
    const isRequest = isJSONRPCRequest(message);
    if (isRequest && !covered) {
      try {
        for (const [name, value] of Object.entries(await admitAnother(deps, request))) headers.set(name, value);
      } catch (error) {
        answers.push(refusal(message.id, error, request));
        continue;
      }
    }
    if (isRequest) covered = false;
    const response = await run(message);
    if (response.status >= 400 && answers.length === 0) return response;
    if (isRequest) answers.push(await response.json());
    else await response.body?.cancel();
  }
  return new Response(JSON.stringify(answers), { status: 200, headers });
}

/**
 * /mcp: the Model Context Protocol over Streamable HTTP through the official SDK, on Web-standard
 * Request/Response (so it runs on Bun, in the binary and on Deno). Both protocol eras, both
 * stateless (no session to keep, any instance answers), JSON answers rather than SSE streams:
 * - the current revision (2026-07-28: no handshake, each request carries its own envelope)
 *   through the SDK's per-request handler;
 * - older clients (2025 revisions: initialize, then requests) through the SDK's stateless
 *   Streamable HTTP transport, as the SDK's own fallback does, but with JSON answers and the
 *   screening below (screen.ts, batch.ts).
 * Auth and limits are the API's: the same Bearer key, counted like any request, and each call of
 * a JSON-RPC batch like a request of its own (batch.ts; docs/api.md#mcp).
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { Elysia } from "elysia";
import { admission } from "../auth/index.ts";
import type { ChatDeps } from "../chat/index.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdOf, requestIdsAndErrors } from "../http/core.ts";
import { batchOf, runBatch } from "./batch.ts";
import { carriesInstructions, instructionsFor } from "./instructions.ts";
import { answered, screen } from "./screen.ts";
import { mcpServer } from "./tools.ts";

type Key = Parameters<typeof mcpServer>[1];

/** A batch holding several requests is admitted and run call by call (batch.ts); anything else as it came. */
async function handle(deps: ChatDeps, request: Request, apiKey: Key, body: unknown): Promise<Response> {
  const batch = batchOf(body);
  const response = batch
    ? await runBatch(deps, request, batch, (message) => serve(deps, request, apiKey, message))
    : await serve(deps, request, apiKey, body);
  return withRequestId(response, request);
}

/** One POST (or GET, DELETE) through a server and transport of its own. */
async function serve(deps: ChatDeps, request: Request, apiKey: Key, body: unknown): Promise<Response> {
  const instructions = carriesInstructions(body) ? await instructionsFor(deps.db, apiKey) : undefined;
  const server = () => mcpServer(deps, apiKey, deps.tracing?.of(request), instructions);
  if (body !== undefined && !(await isLegacyRequest(request, body))) {
    // `auto` answers in JSON unless a tool sends something before its result, which ours never
    // do (`json` would say so on the console at every request). Nothing outlives the answer.
    const handler = createMcpHandler(server, { legacy: "reject" });
    try {
      return await handler.fetch(request, { parsedBody: body });
    } finally {
      void handler.close().catch(() => {});
    }
  }
  return await serveLegacy(server(), request, body);
}

/** A 2025-era message (or a GET, DELETE) through the stateless transport, answered in JSON. */
async function serveLegacy(server: ReturnType<typeof mcpServer>, request: Request, body: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const screened = body === undefined ? undefined : screen(body);
  try {
    if (!screened) return await transport.handleRequest(request, {});
    const response = await transport.handleRequest(request, { parsedBody: screened.body });
    return await answered(response, screened.invalid);
  } finally {
    // With JSON answers the response is complete here: nothing outlives the request.
    void server.close().catch(() => {});
  }
}

/**
 * The transport's own refusals (406 without the right Accept, 415, a batch it cannot take…) are
 * JSON-RPC errors; like every error of the API they carry the request id, in `error.data`
 * (JSON-RPC's place for extra information), so a client's report can be matched to the log line.
 */
async function withRequestId(response: Response, request: Request): Promise<Response> {
  if (response.status < 400 || !response.headers.get("content-type")?.includes("json")) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  try {
    const message = JSON.parse(text) as { error?: { data?: unknown } };
    if (message.error && typeof message.error === "object") {
      const data = message.error.data;
      const extra =
        data && typeof data === "object" && !Array.isArray(data) ? data : data === undefined ? {} : { detail: data };
      message.error.data = { ...extra, request_id: requestIdOf(request) };
      return new Response(JSON.stringify(message), { status: response.status, headers });
    }
  } catch {}
  return new Response(text, { status: response.status, headers });
}

export const mcpRoutes = (deps: ChatDeps) =>
  new Elysia({ tags: ["MCP"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    // JSON-RPC, not a REST operation: documented in docs/api.md#mcp, not in the OpenAPI document.
    .post("/mcp", ({ request, apiKey, body }) => handle(deps, request, apiKey, body), { detail: { hide: true } })
    // No server-initiated stream and no session to end: the transport answers 405, as the spec allows.
    .get("/mcp", ({ request, apiKey }) => handle(deps, request, apiKey, undefined), { detail: { hide: true } })
    .delete("/mcp", ({ request, apiKey }) => handle(deps, request, apiKey, undefined), { detail: { hide: true } });

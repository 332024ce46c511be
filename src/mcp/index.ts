/**
 * /mcp: the Model Context Protocol's Streamable HTTP transport through the official SDK, on
 * Web-standard Request/Response (so it runs on Bun, in the binary and on Deno). Stateless: each
 * POST gets its own server and transport (no session to keep, any instance answers), JSON
 * answers rather than an SSE stream. Auth and limits are the API's: the same Bearer key,
 * counted like any request, and each call of a JSON-RPC batch like a request of its own
 * (batch.ts; docs/api.md#mcp).
 */
// The SDK's "./*" export maps types to "*.d.ts" of the ".js" name, which Deno's checker takes literally.
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Elysia } from "elysia";
import { admission } from "../auth/index.ts";
import type { ChatDeps } from "../chat/index.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdOf, requestIdsAndErrors } from "../http/core.ts";
import { batchOf, runBatch } from "./batch.ts";
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
  const server = mcpServer(deps, apiKey, deps.tracing?.of(request));
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

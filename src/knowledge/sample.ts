/**
 * A small knowledge base about Parley itself, loaded by `serve` into an empty store so a fresh
 * install can answer questions about its own API. A TS module (not a file read at run time) so
 * the compiled binary and Deno carry it.
 */
import type { KnowledgeDoc } from "./parse.ts";

const BASE = "https://parley.example/docs";

export const SAMPLE_DOCS: KnowledgeDoc[] = [
  {
    url: `${BASE}/overview`,
    title: "Parley overview",
    content: `# Parley overview

Parley is a self-hostable HTTP API for a conversational agent. Clients send a message and get one reply, either as a single JSON body or streamed token by token over Server-Sent Events. Clients can list their conversations with cursor pagination and read one conversation with its full message history.

## Running Parley

Parley ships as one compiled binary with an embedded PGlite database in a data folder, so self-hosting needs no other process. Teams that outgrow one machine run many stateless Parley instances against one PostgreSQL database by setting DATABASE_URL. Developers can also import Parley as an Elysia plugin into their own app on Bun or Deno.

## The agent

The default agent answers from a knowledge base with PostgreSQL full-text search. It quotes the best matching passages and reports the source URLs it used in the sources event. Load documents with the ingest command: parley ingest docs.jsonl.`,
  },
  {
    url: `${BASE}/authentication`,
    title: "Authentication and API keys",
    content: `# Authentication and API keys

Every request to the v1 API carries an API key in the Authorization header: Authorization: Bearer prl_... A missing, malformed, unknown or revoked key is answered with status 401, a WWW-Authenticate header and the standard error body.

## Creating keys

Create a key with the command line: parley keys create --name my-app --plan free. The secret is printed once and never stored; Parley keeps only its SHA-256 hash and a short display prefix. List keys with parley keys list and revoke one with parley keys revoke KEY_ID. A revoked key stops working on the next request on every instance.`,
  },
  {
    url: `${BASE}/chat`,
    title: "Sending messages and streaming replies",
    content: `# Sending messages and streaming replies

Send a message with POST /v1/chat and a JSON body: {"message": "Hello", "conversation_id": "conv_...", "stream": false}. The message is required. Without a conversation_id a new conversation starts. With stream false (the default) the reply is one JSON object with id, conversation_id, content and created_at.

## Streaming with Server-Sent Events

With stream set to true the reply is streamed as Server-Sent Events with content type text/event-stream. Each event is a line starting with data: followed by JSON. The stream sends one start event with the conversation_id, then token events whose content concatenates to the reply, with a sources event among them each time the reply cites a new source (the source URLs so far, before the text that cites them), then one end event with the message_id. If generation fails after the stream began, one error event is sent instead of end. While the agent is silent, comment keep-alives are sent every 15 seconds.

## Disconnects

The reply is stored even when the client disconnects in the middle of a stream, so it can be read later from the conversation history.`,
  },
  {
    url: `${BASE}/conversations`,
    title: "Conversations and pagination",
    content: `# Conversations and pagination

List conversations with GET /v1/conversations. Results are newest first and paginated with an opaque cursor. The limit parameter sets the page size: default 20, maximum 100. The response has data and pagination with has_more and next_cursor. Pass next_cursor as the cursor parameter to get the next page; next_cursor is null on the last page. Paging stays consistent when conversations are created or deleted between requests.

## Reading and deleting a conversation

GET /v1/conversations/{id} returns one conversation with its messages, oldest first. Each message has id, role (user or assistant), content, sources, status and created_at. DELETE /v1/conversations/{id} deletes a conversation and its messages. A conversation that belongs to another API key is answered with 404, exactly like one that does not exist.`,
  },
  {
    url: `${BASE}/rate-limits`,
    title: "Plans and rate limits",
    content: `# Plans and rate limits

Every API key has a plan. The Free plan allows 20 requests per minute and 1,000 requests per day. The Pro plan allows 100 requests per minute and 10,000 requests per day. Enterprise keys get custom limits.

## How limits are counted

The per-minute limit is a sliding 60-second window. The daily quota resets at midnight UTC. Limits hold across many instances because they are counted inside the database. A request over the limit gets status 429 with the code rate_limit_exceeded or daily_quota_exceeded and a Retry-After header. Every response carries RateLimit-Policy, RateLimit and X-RateLimit headers.`,
  },
  {
    url: `${BASE}/errors`,
    title: "Errors",
    content: `# Errors

Every error response is JSON: {"error": {"type", "code", "message", "param"}, "request_id"}. Codes include invalid_request and invalid_json (400), invalid_cursor (400), unauthorized (401), not_found (404), method_not_allowed (405), payload_too_large (413), unsupported_media_type (415), rate_limit_exceeded and daily_quota_exceeded (429), internal_error (500) and service_unavailable (503). Every response carries an X-Request-Id header; quote it when reporting a problem.`,
  },
];

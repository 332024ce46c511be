/**
 * The OpenAPI 3.1 document: paths and schemas generated from the route schemas by
 * @elysiajs/openapi's `toOpenAPISchema`, plus what route schemas cannot say — the SSE variant of
 * the chat reply, the JSON request body (our own body parser hides it from the generator), the
 * Bearer scheme, and the headers every /v1 response carries.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { StreamEvent } from "../chat/model.ts";

const INFO = {
  openapi: "3.1.0",
  info: {
    title: "Parley API",
    version: "1.0.0",
    description:
      "Chat with an agent (JSON or Server-Sent Events), list and read conversations. Every /v1 request needs `Authorization: Bearer <key>`. Errors are always `{error: {type, code, message, param?}, request_id}`.",
  },
  security: [{ bearer: [] }],
  tags: [
    { name: "Chat", description: "Send messages, get replies." },
    { name: "Conversations", description: "List, read and delete conversations." },
  ],
};

const int = { schema: { type: "integer" } };
const str = { schema: { type: "string" } };
const HEADERS = {
  "X-Request-Id": { description: "Id of this request; quote it when reporting a problem.", ...str },
  "RateLimit-Policy": { description: 'Both windows, e.g. `"minute";q=20;w=60, "day";q=1000;w=86400` (IETF httpapi draft).', ...str },
  RateLimit: { description: 'Remaining and seconds to reset per window, e.g. `"minute";r=12;t=41, "day";r=988;t=30211`.', ...str },
  "X-RateLimit-Limit": { description: "Limit of the window with the least room left.", ...int },
  "X-RateLimit-Remaining": { description: "Requests left in that window.", ...int },
  "X-RateLimit-Reset": { description: "Unix time (s) when that window frees a slot or resets.", ...int },
  "Retry-After": { description: "On 429: seconds after which a retry is admitted.", ...int },
};

type Operation = {
  security?: unknown;
  parameters?: unknown[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};

/** Builds the document for `app` (call it with the composed app, after all routes are added). */
export function buildOpenApi(app: AnyElysia, chatBodySchema: unknown) {
  const generated = toOpenAPISchema(app, { paths: [/\*/] }) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const [path, ops] of Object.entries(generated.paths)) {
    for (const op of Object.values(ops)) {
      if (!path.startsWith("/v1/")) {
        op.security = [];
        continue;
      }
      op.responses ??= {};
      // A route without a success schema answers 204 (DELETE).
      if (!Object.keys(op.responses).some((s) => s.startsWith("2"))) op.responses["204"] = { description: "No content" };
      for (const [status, res] of Object.entries(op.responses)) {
        res.headers = { ...res.headers, "X-Request-Id": ref("X-Request-Id") };
        if (status === "401") continue;
        for (const h of ["RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) {
          res.headers[h] = ref(h);
        }
        if (status === "429") res.headers["Retry-After"] = ref("Retry-After");
      }
    }
  }
  const chat = generated.paths["/v1/chat"]?.post;
  if (chat) {
    chat.requestBody = { content: { "application/json": { schema: chatBodySchema } }, required: true } as never;
    const ok = chat.responses?.["200"];
    if (ok) {
      ok.description = "The reply as JSON (`stream: false`), or its events (`stream: true`): `data: <event>` lines.";
      ok.content = { ...ok.content, "text/event-stream": { schema: StreamEvent } };
    }
  }
  documentReplies(generated.paths, ref);
  return {
    ...INFO,
    paths: generated.paths,
    components: {
      schemas: generated.components.schemas,
      headers: HEADERS,
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: prl_…" } },
    },
  };
}

/** What the reply routes' schemas cannot say: Idempotency-Key, the resume position, the event stream. */
function documentReplies(paths: Record<string, Record<string, Operation>>, ref: (name: string) => unknown) {
  const chat = paths["/v1/chat"]?.post;
  if (chat) {
    chat.parameters = [
      ...(chat.parameters ?? []),
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "1–255 printable ASCII characters; a retry with the same key and body gets the same reply (kept 24 h).",
        schema: { type: "string", maxLength: 255 },
      },
    ];
  }
  const events = paths["/v1/conversations/{id}/messages/{message_id}/events"]?.get;
  if (!events) return;
  events.parameters = [
    ...(events.parameters ?? []),
    { name: "after", in: "query", required: false, description: "Event id to resume after (0: from `start`).", schema: { type: "integer", minimum: 0 } },
    { name: "Last-Event-ID", in: "header", required: false, description: "Event id to resume after; wins over `after`.", schema: { type: "string" } },
  ];
  const responses = events.responses ?? {};
  const headers = responses["204"]?.headers ?? { "X-Request-Id": ref("X-Request-Id") };
  delete responses["204"];
  responses["200"] = {
    description: "The reply's events after the position: `id: <n>` and `data: <event>` lines, up to `end` or `error`.",
    headers,
    content: { "text/event-stream": { schema: StreamEvent } },
  };
  events.responses = responses;
}

/**
 * The OpenAPI 3.1 document: paths generated from the route schemas by @elysiajs/openapi's
 * `toOpenAPISchema`, plus what route schemas cannot say — the SSE variant of the chat reply,
 * the JSON request body (our own body parser hides it from the generator), the Bearer scheme,
 * the headers /v1 responses carry, the 405 every path can give — with every wire type named
 * once under `components.schemas` and referenced, and only standard JSON Schema keywords.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { DEFAULT_OPTIONS } from "../config/options.ts";
import { Feedback } from "../conversations/index.ts";
import { FeedbackBody, FeedbackItem, FeedbackList } from "../feedback/index.ts";
import { ROUTE_DOC, type RouteDoc } from "../http/route-doc.ts";
import { UsageReport } from "../usage/index.ts";
import { wireSchemas } from "./openapi-components.ts";
import { cleanSchema, useRefs } from "./openapi-schema.ts";

export interface OpenApiOptions {
  /** Where the API is reached; default `/` (the document's own origin). Embedding under a prefix: `[{ url: "/chat-api" }]`. */
  servers?: { url: string; description?: string }[];
  /** The `maxLength` stated for `message` (default: the server default). */
  maxMessageChars?: number;
}

const INFO = {
  title: "Parley API",
  version: "1.0.0",
  description:
    "Chat with an agent (JSON or Server-Sent Events), list and read conversations. Every /v1 request needs `Authorization: Bearer <key>`. Errors are always `{error: {type, code, message, param?}, request_id}`.",
  license: { name: "MIT", identifier: "MIT" },
};

const TAGS = [
  { name: "Chat", description: "Send messages, get replies." },
  { name: "Conversations", description: "List, read and delete conversations." },
  {
    name: "Knowledge bases",
    description:
      "Knowledge bases and their documents (admin keys), and search (any key that may use the knowledge base).",
  },
  { name: "Keys", description: "API keys (admin keys only)." },
  { name: "Health", description: "Probes for load balancers and orchestrators; no key needed." },
  {
    name: "OpenAI-compatible",
    description: "Chat Completions and Models in OpenAI's wire form (errors too), for the `openai` SDKs and chat UIs.",
  },
];

const int = { schema: { type: "integer" } };
const str = { schema: { type: "string" } };
const HEADERS = {
  "X-Request-Id": { description: "Id of this request; quote it when reporting a problem.", ...str },
  "RateLimit-Policy": {
    description: 'Both windows, e.g. `"minute";q=20;w=60, "day";q=1000;w=86400` (IETF httpapi draft).',
    ...str,
  },
  RateLimit: {
    description: 'Remaining and seconds to reset per window, e.g. `"minute";r=12;t=41, "day";r=988;t=30211`.',
    ...str,
  },
  "X-RateLimit-Limit": { description: "Limit of the window with the least room left.", ...int },
  "X-RateLimit-Remaining": { description: "Requests left in that window.", ...int },
  "X-RateLimit-Reset": { description: "Unix time (s) when that window frees a slot or resets.", ...int },
  "Retry-After": { description: "On 429: seconds after which a retry is admitted.", ...int },
  "WWW-Authenticate": { description: 'On 401: the scheme to use, `Bearer realm="parley"`.', ...str },
  Allow: { description: "On 405: the methods this path answers, e.g. `GET, DELETE`.", ...str },
};
const RATE_HEADERS = [
  "RateLimit-Policy",
  "RateLimit",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
];
const DESCRIPTIONS: Record<string, string> = {
  "200": "OK",
  "400": "Invalid request: `invalid_request`, `invalid_json` or `invalid_cursor`; `param` names the field.",
  "201": "Created",
  "401": "Missing, malformed, unknown or revoked key (`unauthorized`), or an expired one (`key_expired`).",
  "403": "The route needs an admin key (`permission_denied`).",
  "404": "No such resource for this key (`not_found`).",
  "409":
    "A conflict: the name is taken (`already_exists`), or the change would leave no active admin key (`last_admin`).",
  "413": "Body (or a document's content) larger than the limit (`payload_too_large`).",
  "415": "Body not sent with a supported `Content-Type` (`unsupported_media_type`).",
  "429": "Over the per-minute (`rate_limit_exceeded`) or per-day (`daily_quota_exceeded`) limit; see `Retry-After`.",
  "500": "Unexpected failure (`internal_error`); quote `request_id`.",
  "503": "The store or limiter is unavailable, or the server is shutting down (`service_unavailable`); retry later.",
};
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

type Response = { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> };
type Operation = {
  operationId?: string;
  [ROUTE_DOC]?: RouteDoc;
  parameters?: unknown[];
  security?: unknown;
  requestBody?: unknown;
  responses?: Record<string, Response | { $ref: string }>;
};

/**
 * Builds the document for `app`: the standalone app, or an app embedding `createParley()` (call
 * it after all routes are added). Parley's operations are the paths under `/v1/`.
 */
export function buildOpenApi(app: AnyElysia, options: OpenApiOptions = {}) {
  const generated = toOpenAPISchema(app, { paths: [/\*/] }) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, unknown> };
  };
  const maxChars = options.maxMessageChars ?? DEFAULT_OPTIONS.maxMessageChars;
  const schemas = Object.fromEntries(
    Object.entries({
      ...wireSchemas(maxChars),
      Feedback,
      FeedbackBody,
      FeedbackItem,
      FeedbackList,
      UsageReport,
      ...generated.components?.schemas,
    }).map(([name, s]) => [name, cleanSchema(JSON.parse(JSON.stringify(s)))]),
  );
  const docs = new Map<string, RouteDoc>();
  for (const [path, ops] of Object.entries(generated.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      decorate(path, op, schemas);
      if (op[ROUTE_DOC]) docs.set(`${method} ${path}`, op[ROUTE_DOC]);
      delete op[ROUTE_DOC];
    }
  }
  const paths = useRefs(cleanPaths(generated.paths), schemas) as typeof generated.paths;
  for (const [path, ops] of Object.entries(paths))
    for (const [method, op] of Object.entries(ops)) pinSuccess(op, docs.get(`${method} ${path}`));
  const json = { content: { "application/json": { schema: schemas.ErrorBody } } };
  const responses = {
    MethodNotAllowed: {
      description:
        "The path exists but does not answer this method (`method_not_allowed`); `Allow` lists the methods it does.",
      headers: { Allow: header("Allow"), "X-Request-Id": header("X-Request-Id") },
      ...json,
    },
  };
  const named = (n: string) => useRefs(schemas[n], schemas, n);
  return {
    openapi: "3.1.0",
    info: INFO,
    servers: options.servers ?? [{ url: "/", description: "The server that serves this document" }],
    security: [{ bearer: [] }],
    tags: TAGS,
    paths,
    components: {
      schemas: Object.fromEntries(Object.keys(schemas).map((n) => [n, named(n)])),
      responses: useRefs(responses, schemas),
      headers: HEADERS,
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: prl_…" } },
    },
  };
}

/**
 * The named schema of each operation's JSON success answer and event stream, as the route states
 * them. The generator rewrites unions (a nullable object, a described enum) in its own way, so
 * its copy no longer equals the named one and `useRefs` would leave it inline.
 */
function pinSuccess(op: Operation, doc: RouteDoc | undefined) {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const ok = op.responses?.["200"] as Response | undefined;
  const json = ok?.content?.["application/json"] as { schema?: unknown } | undefined;
  if (doc?.success && json) json.schema = ref(doc.success);
  const created = (op.responses?.["201"] as Response | undefined)?.content?.["application/json"] as
    | { schema?: unknown }
    | undefined;
  if (doc?.success && created) created.schema = ref(doc.success);
  if (doc?.okOneOf && json) json.schema = { oneOf: doc.okOneOf.map(ref) };
  const stream = ok?.content?.["text/event-stream"] as { schema?: unknown } | undefined;
  if (doc?.events && stream) stream.schema = { $ref: `#/components/schemas/${doc.events}` };
}

/** What the generator cannot know about one operation: generic rules, and what its route states (`x-parley`). */
function decorate(path: string, op: Operation, schemas: Record<string, unknown>) {
  const doc = op[ROUTE_DOC];
  op.responses ??= {};
  if (!path.includes("/v1/")) {
    op.security = [];
    if (!Object.keys(op.responses).length) op.responses["200"] = { description: "OK" };
    return;
  }
  // A route without a success schema answers 204 (DELETE; a resume at the end of its reply).
  if (!Object.keys(op.responses).some((s) => s.startsWith("2"))) op.responses["204"] = { description: "No content" };
  for (const [status, res] of Object.entries(op.responses) as [string, Response][]) {
    const description = doc?.statuses?.[status] ?? DESCRIPTIONS[status];
    if (description) res.description = description;
    res.headers = { ...res.headers, "X-Request-Id": header("X-Request-Id") };
    if (status === "401") {
      res.headers["WWW-Authenticate"] = header("WWW-Authenticate");
      continue; // refused before the limiter: no rate-limit headers
    }
    if (!doc?.public) for (const h of RATE_HEADERS) res.headers[h] = header(h);
    if (status === "429") res.headers["Retry-After"] = header("Retry-After");
  }
  op.responses["405"] = { $ref: "#/components/responses/MethodNotAllowed" };
  if (!doc) return;
  if (doc.public) op.security = [];
  const parameters = (doc.parameters ?? []).map((p) => ({ ...p, required: false }));
  if (parameters.length) op.parameters = [...(op.parameters ?? []), ...parameters];
  if (doc.body) op.requestBody = { required: true, content: { "application/json": { schema: schemas[doc.body] } } };
  if (doc.eventsOnly && op.responses["204"])
    (op.responses["204"] as Response).description =
      "At or past the terminal event of an ended reply: nothing more will come (an EventSource stops reconnecting).";
  if (doc.file) {
    const headers = (op.responses["204"] as Response | undefined)?.headers;
    delete op.responses["204"];
    op.responses["200"] = {
      description: doc.file.description,
      headers,
      content: { [doc.file.mediaType]: { schema: { type: "string", format: "binary" } } },
    };
  }
  if (doc.events) {
    const events = { "text/event-stream": { schema: schemas[doc.events] } };
    const ok = op.responses["200"] as Response | undefined;
    const headers = ok?.headers ?? (op.responses["204"] as Response | undefined)?.headers;
    op.responses["200"] = doc.eventsOnly
      ? {
          description: "The reply's events: `id: <n>` and `data: <event>` lines, up to `end` or `error`.",
          headers,
          content: events,
        }
      : {
          ...ok,
          description: "The reply as JSON, or its events (`stream: true`): `id: <n>` and `data: <event>` lines.",
          content: { ...ok?.content, ...events },
        };
  }
}

/** Every `schema` in the paths, reduced to standard keywords. */
function cleanPaths(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanPaths);
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "schema" ? cleanSchema(JSON.parse(JSON.stringify(v))) : cleanPaths(v),
    ]),
  );
}

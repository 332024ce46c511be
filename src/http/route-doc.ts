/**
 * What a route says about itself in the OpenAPI document that its schemas cannot: its
 * operationId, the named schema of its success answer, an event-stream answer (the route
 * returns a raw stream), its JSON body (our own body reader hides it from the generator) and
 * extra parameters. It rides in the route's `detail` under `x-parley`; the document builder
 * (app/openapi.ts) applies it by generic rules and removes the key.
 */
export interface RouteDoc {
  operationId: string;
  /** Name of the component schema of the JSON success answer (200, and 201 for a creation). */
  success?: string;
  /** The 200 answer is one of these named schemas (e.g. a replaced document or a bulk result). */
  okOneOf?: string[];
  /** Name of the component schema of each `data:` line when the route answers an event stream. */
  events?: string;
  /** The event stream is the only success answer (otherwise it is an alternative to the JSON one). */
  eventsOnly?: boolean;
  /** The 200 answer is a file of this media type (a download), not JSON. */
  file?: { mediaType: string; description: string };
  /** Name of the component schema of the JSON request body. */
  body?: string;
  /** No key: no Bearer scheme, no key's rate-limit headers. */
  public?: boolean;
  /** What an answer means on this route, by status, where the document's generic words would mislead. */
  statuses?: Record<string, string>;
  /** Header and query parameters the route reads itself. */
  parameters?: { name: string; in: "header" | "query"; description: string; schema: Record<string, unknown> }[];
}

export const ROUTE_DOC = "x-parley";

/** The route's `detail`: summary and description as Elysia takes them, plus the route's own document facts. */
export const routeDoc = (summary: string, description: string, doc: RouteDoc) =>
  ({ summary, description, operationId: doc.operationId, [ROUTE_DOC]: doc }) as {
    summary: string;
    description: string;
  };

/**
 * The wire contract of the /v1 API, defined once, as plain TypeScript with no imports (so the
 * client package can ship it as `.d.ts` and any layer may use it):
 * - errors.ts: the closed table of error codes (status, type) and the error body;
 * - events.ts: the SSE events of a reply (start, token, sources, end, error) and their enums;
 * - resources.ts: the JSON resources (chat reply, message, conversations, pages);
 * - plans.ts: the API key plans;
 * - operate.ts: usage by day and feedback on replies (what operators read);
 * - sources.ts: web sources of a knowledge base and their syncs.
 * - widget.ts: visitor sessions of public keys (the "Ask AI" widget).
 * The server derives from it: the run's events are `StreamEvent`, and each TypeBox route schema
 * (validation and OpenAPI) is checked at compile time to equal its type here (http/schema-contract.ts), with
 * enum-like unions built from the const arrays below. The prose reference is docs/api.md.
 */
export * from "./analytics.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./keys.ts";
export * from "./knowledge.ts";
export * from "./operate.ts";
export * from "./plans.ts";
export * from "./resources.ts";
export * from "./sources.ts";
export * from "./widget.ts";

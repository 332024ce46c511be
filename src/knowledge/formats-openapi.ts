/**
 * An OpenAPI 3.x or Swagger 2.0 document (JSON or YAML, parsed by `yaml` as front matter is) as
 * knowledge documents: one per operation, and one overview of the API at the spec's own URL.
 * An operation's URL is the spec's plus an anchor: `#operation/<operationId>` (Redoc's anchors),
 * or `#<method>-<path-slug>` without an operationId (`GET /pets/{petId}` → `#get-pets-petid`;
 * a second one alike gets `-2`). Its title is `GET /pets — List pets` (its summary, else its
 * operationId); its text says its description, parameters, request body, responses and
 * authentication, with schemas named and their fields listed one level deep
 * (formats-openapi-schema.ts). Webhooks and callbacks are not read.
 */
import { parse as parseYaml } from "yaml";
import { operationMarkdown } from "./formats-openapi-operation.ts";
import { isObject, type Json, note, Refs } from "./formats-openapi-schema.ts";

/** Why a file could not be read as OpenAPI (each an OpenApiError's `problem`). */
export type OpenApiProblem = "unreadable" | "not_openapi" | "too_many_operations";

/** A file that is not a readable OpenAPI document: `problem` says which way, the message to a person. */
export class OpenApiError extends Error {
  constructor(
    readonly problem: OpenApiProblem,
    message: string,
  ) {
    super(message);
    this.name = "OpenApiError";
  }
}

/** One document made from the spec: an operation, or the overview (no anchor). */
export interface OpenApiDocument {
  url: string;
  title: string;
  markdown: string;
  /** `api` (the spec's title), and for an operation its `method`, `path`, `operation_id`, `tags`. */
  metadata: Record<string, unknown>;
}

/** Most operations read from one spec: a larger one fails whole (OpenApiError). */
export const MAX_OPENAPI_OPERATIONS = 2_000;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** `openapi: 3.…` or `swagger: "2.0"` at the top level of a YAML file (a key in column 0). */
const YAML_MARK =
  /^(?:openapi|"openapi"|'openapi')[ \t]*:[ \t]*["']?3\.|^(?:swagger|"swagger"|'swagger')[ \t]*:[ \t]*["']?2(?:\.0)?\b/m;

/** The spec's version, `3.x` or `2.0`, when `v` is an OpenAPI or Swagger document. */
function versionOf(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  if (typeof v.openapi === "string" && /^3\./.test(v.openapi)) return v.openapi;
  if (v.swagger === "2.0" || v.swagger === 2) return "2.0";
  return undefined;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === "string") : []);

const isJson = (text: string) => /^\uFEFF?\s*\{/.test(text);

/**
 * Whether `text` is an OpenAPI 3.x or Swagger 2.0 document: a JSON object with `openapi` or
 * `swagger` at its top, or YAML with that key in column 0 (its top level).
 */
export function looksLikeOpenApi(text: string): boolean {
  if (!isJson(text)) return YAML_MARK.test(text);
  try {
    return versionOf(JSON.parse(text.replace(/^\uFEFF/, ""))) !== undefined;
  } catch {
    return false;
  }
}

function parseSpec(text: string): Json {
  const json = isJson(text);
  let spec: unknown;
  try {
    const body = text.replace(/^\uFEFF/, "");
    spec = json ? JSON.parse(body) : parseYaml(body, { maxAliasCount: 100, uniqueKeys: false, logLevel: "error" });
  } catch (error) {
    const why = (error as Error).message.split("\n")[0];
    throw new OpenApiError("unreadable", `not valid ${json ? "JSON" : "YAML"} (${why})`);
  }
  if (!versionOf(spec))
    throw new OpenApiError(
      "not_openapi",
      'not an OpenAPI document: no top-level `openapi: 3.…` or `swagger: "2.0"` (OpenAPI 3.x and Swagger 2.0 are read)',
    );
  return spec as Json;
}

/** The path's slug for an anchor: lower case, `{}` dropped, other runs of non-alphanumerics `-`. */
const slug = (path: string) =>
  path
    .toLowerCase()
    .replace(/[{}]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "") || "root";

/** The spec's URL without its fragment: the overview's URL and the operations' base. */
function baseOf(url: string): string {
  try {
    const u = new URL(url);
    u.hash = "";
    return u.href;
  } catch {
    return url.replace(/#.*$/, "");
  }
}

/**
 * Reads `text` (an OpenAPI document served at `url`) into documents: the overview first, then
 * each operation in the order of `paths`. Throws an OpenApiError when the text is not JSON or
 * YAML, is not OpenAPI 3.x or Swagger 2.0, or has over MAX_OPENAPI_OPERATIONS operations.
 */
export function openApiToDocuments(text: string, url: string): OpenApiDocument[] {
  const spec = parseSpec(text);
  const refs = new Refs(spec);
  const info = isObject(spec.info) ? spec.info : {};
  const api = note(info.title, 200) || "API";
  const base = baseOf(url);
  const anchors = new Set<string>();
  const ops: OpenApiDocument[] = [];
  const paths = isObject(spec.paths) ? spec.paths : {};
  for (const [path, raw] of Object.entries(paths)) {
    const item = refs.resolve(raw).value;
    if (!item) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      if (ops.length >= MAX_OPENAPI_OPERATIONS)
        throw new OpenApiError("too_many_operations", `the spec has over ${MAX_OPENAPI_OPERATIONS} operations`);
      const id = typeof op.operationId === "string" && op.operationId.trim() ? op.operationId.trim() : undefined;
      let anchor = id ? `operation/${id}` : `${method}-${slug(path)}`;
      for (let n = 2; anchors.has(anchor); n++) anchor = `${id ? `operation/${id}` : `${method}-${slug(path)}`}-${n}`;
      anchors.add(anchor);
      const label = note(op.summary, 200) || id;
      const tags = Array.isArray(op.tags) ? op.tags.filter((t) => typeof t === "string") : [];
      ops.push({
        url: `${base}#${anchor}`,
        title: `${method.toUpperCase()} ${path}${label ? ` — ${label}` : ""}`,
        markdown: operationMarkdown({ spec, refs, path, method, item, op }),
        metadata: { api, method: method.toUpperCase(), path, ...(id ? { operation_id: id } : {}), tags },
      });
    }
  }
  return [{ url: base, title: api, markdown: overview(spec, info, ops), metadata: { api } }, ...ops];
}

/** The API as a whole: version, description, servers, tags and the list of its operations. */
function overview(spec: Json, info: Json, ops: OpenApiDocument[]): string {
  const version = typeof info.version === "string" || typeof info.version === "number" ? ` ${info.version}` : "";
  const kind = typeof spec.openapi === "string" ? `OpenAPI ${spec.openapi}` : "Swagger 2.0";
  const parts = [`${note(info.title, 200) || "API"}${version ? `, version${version}` : ""} (${kind}).`];
  if (typeof info.description === "string" && info.description.trim()) parts.push(info.description.trim());
  const servers = Array.isArray(spec.servers)
    ? spec.servers.filter(isObject).map((s) => `- ${String(s.url)}${s.description ? `: ${note(s.description)}` : ""}`)
    : typeof spec.host === "string"
      ? [
          `- ${strings(spec.schemes)[0] ?? "https"}://${spec.host}${typeof spec.basePath === "string" ? spec.basePath : ""}`,
        ]
      : [];
  if (servers.length) parts.push(`## Servers\n\n${servers.slice(0, 50).join("\n")}`);
  const tags = Array.isArray(spec.tags)
    ? spec.tags.filter(isObject).map((t) => `- ${String(t.name)}${t.description ? `: ${note(t.description)}` : ""}`)
    : [];
  if (tags.length) parts.push(`## Tags\n\n${tags.slice(0, 200).join("\n")}`);
  if (ops.length) parts.push(`## Operations\n\n${ops.map((o) => `- ${o.title}`).join("\n")}`);
  return parts.join("\n\n");
}

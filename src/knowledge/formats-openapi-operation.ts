/**
 * One OpenAPI operation as Markdown (formats-openapi.ts makes the documents): a line naming it,
 * its description, then `## Parameters`, `## Request body`, `## Responses` (a `###` per status)
 * and `## Authentication`, so a question about any of them finds that passage. Swagger 2.0's
 * `in: body` parameter is its request body, and its responses' `schema` their content.
 */
import { isObject, type Json, note, type Refs } from "./formats-openapi-schema.ts";

/** Most parameters, responses and media types listed for one operation. */
const MAX_PARAMETERS = 100;
const MAX_RESPONSES = 40;
const MAX_MEDIA_TYPES = 8;

export interface Operation {
  spec: Json;
  refs: Refs;
  path: string;
  method: string;
  /** The path item: its `parameters` apply to each of its operations. */
  item: Json;
  op: Json;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === "string") : []);

/** Media types and their schemas as Markdown: types with the same schema share a line, fields listed once. */
function content(refs: Refs, media: [string, unknown][]): string {
  const groups = new Map<string, { types: string[]; schema: unknown }>();
  for (const [type, schema] of media.slice(0, MAX_MEDIA_TYPES)) {
    const phrase = schema === undefined ? "" : refs.phrase(schema);
    const group = groups.get(phrase) ?? { types: [], schema };
    group.types.push(`\`${type}\``);
    groups.set(phrase, group);
  }
  return [...groups]
    .map(([phrase, { types, schema }]) => {
      const fields = schema === undefined ? [] : refs.fields(schema);
      return [`${types.join(", ")}${phrase ? `: ${phrase}` : ""}`, ...(fields.length ? ["", ...fields] : [])].join(
        "\n",
      );
    })
    .join("\n\n");
}

/** A 3.x `content` map as [media type, schema] pairs. */
const mediaOf = (refs: Refs, v: unknown): [string, unknown][] =>
  isObject(v) ? Object.entries(v).map(([type, m]) => [type, refs.resolve(m).value?.schema]) : [];

/** The operation's parameters, the path item's first (an operation's own of the same name and place win). */
function parameters(o: Operation): Json[] {
  const byKey = new Map<string, Json>();
  for (const raw of [
    ...(Array.isArray(o.item.parameters) ? o.item.parameters : []),
    ...(Array.isArray(o.op.parameters) ? o.op.parameters : []),
  ]) {
    const p = o.refs.resolve(raw).value;
    if (p) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  }
  return [...byKey.values()];
}

function parameterLine(refs: Refs, p: Json): string {
  // 3.x: `schema` (or `content`); Swagger 2.0: the type is on the parameter itself.
  const schema = p.schema ?? (isObject(p.content) ? mediaOf(refs, p.content)[0]?.[1] : undefined) ?? p;
  const flags = [
    String(p.in),
    refs.phrase(schema),
    ...(p.required === true ? ["required"] : []),
    ...(p.deprecated === true ? ["deprecated"] : []),
  ];
  const text = note(p.description);
  return `- \`${String(p.name)}\` (${flags.join(", ")})${text ? `: ${text}` : ""}`;
}

function requestBody(o: Operation, body: Json | undefined): string | undefined {
  const { refs, spec, op } = o;
  if (body) {
    // Swagger 2.0: the body parameter, in the media types the operation consumes.
    const types = strings(op.consumes).length ? strings(op.consumes) : strings(spec.consumes);
    const media = (types.length ? types : ["application/json"]).map((t): [string, unknown] => [t, body.schema]);
    const text = note(body.description, 2_000);
    return [
      `## Request body${body.required === true ? " (required)" : ""}`,
      ...(text ? [text] : []),
      content(refs, media),
    ].join("\n\n");
  }
  const rb = refs.resolve(op.requestBody).value;
  if (!rb) return undefined;
  const text = typeof rb.description === "string" ? rb.description.trim() : "";
  const media = content(refs, mediaOf(refs, rb.content));
  return [
    `## Request body${rb.required === true ? " (required)" : ""}`,
    ...(text ? [text] : []),
    ...(media ? [media] : []),
  ].join("\n\n");
}

function responses(o: Operation): string | undefined {
  const { refs, spec, op } = o;
  if (!isObject(op.responses)) return undefined;
  const produces = strings(op.produces).length ? strings(op.produces) : strings(spec.produces);
  const parts = Object.entries(op.responses)
    .slice(0, MAX_RESPONSES)
    .map(([status, raw]) => {
      const r = refs.resolve(raw).value ?? {};
      const media =
        r.content !== undefined
          ? mediaOf(refs, r.content)
          : r.schema !== undefined
            ? (produces.length ? produces : ["application/json"]).map((t): [string, unknown] => [t, r.schema])
            : [];
      const body = content(refs, media);
      const text = note(r.description, 2_000);
      return [`### ${status}${text ? `: ${text}` : ""}`, ...(body ? [body] : [])].join("\n\n");
    });
  return parts.length ? `## Responses\n\n${parts.join("\n\n")}` : undefined;
}

/** Who may call it: the operation's `security`, else the spec's; `[]` is "none". */
function authentication(o: Operation): string | undefined {
  const security = Array.isArray(o.op.security)
    ? o.op.security
    : Array.isArray(o.spec.security)
      ? o.spec.security
      : undefined;
  if (!security) return undefined;
  if (security.length === 0) return "## Authentication\n\nNone.";
  const lines = security.filter(isObject).map(
    (req) =>
      Object.entries(req)
        .map(([name, scopes]) => `\`${name}\`${strings(scopes).length ? ` (${strings(scopes).join(", ")})` : ""}`)
        .join(" and ") || "none",
  );
  return `## Authentication\n\n${lines.map((l) => `- ${l}`).join("\n")}`;
}

export function operationMarkdown(o: Operation): string {
  const { op, refs } = o;
  const id = typeof op.operationId === "string" ? ` · operation \`${op.operationId}\`` : "";
  const tags = strings(op.tags).length ? ` · tags: ${strings(op.tags).join(", ")}` : "";
  const parts = [`\`${o.method.toUpperCase()} ${o.path}\`${id}${tags}${op.deprecated === true ? " · deprecated" : ""}`];
  if (typeof op.summary === "string" && op.summary.trim()) parts.push(op.summary.trim());
  if (typeof op.description === "string" && op.description.trim()) parts.push(op.description.trim());
  const params = parameters(o);
  const body = params.find((p) => p.in === "body");
  const listed = params.filter((p) => p !== body).slice(0, MAX_PARAMETERS);
  if (listed.length) parts.push(`## Parameters\n\n${listed.map((p) => parameterLine(refs, p)).join("\n")}`);
  for (const section of [requestBody(o, body), responses(o), authentication(o)]) if (section) parts.push(section);
  return parts.join("\n\n");
}

/**
 * Turns validator schemas (TypeBox, as Elysia generates them) into plain JSON Schema 2020-12 for
 * the OpenAPI document, and swaps repeated subtrees for `$ref`s to named components.
 */

// JSON Schema 2020-12 + OpenAPI 3.1 keywords. Anything else (TypeBox's `error` messages, its
// symbol and `~` markers, Elysia's coercion hints) is validator detail and stays out of the document.
const KEYWORDS = new Set([
  "$ref",
  "$defs",
  "type",
  "properties",
  "required",
  "items",
  "prefixItems",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "const",
  "enum",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minProperties",
  "maxProperties",
  "description",
  "title",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
  "discriminator",
  "externalDocs",
]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const SCHEMA_ONE = new Set(["items", "additionalProperties", "propertyNames", "not", "contains"]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A copy of `schema` with only standard keywords (and `x-` extensions), recursively. */
export function cleanSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const coerced = unwrapCoercion(schema);
  if (coerced) return cleanSchema(coerced);
  const literals = literalsToEnum(schema) ?? typesToList(schema);
  if (literals) return cleanSchema(literals);
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!KEYWORDS.has(k) && !k.startsWith("x-")) continue;
    if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, cleanSchema(s)]));
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(cleanSchema);
    else if (SCHEMA_ONE.has(k)) out[k] = cleanSchema(v);
    else out[k] = structuredClone(v);
  }
  return out;
}

/**
 * Elysia documents a numeric query parameter as `anyOf: [{type: string, format: integer}, <the
 * real schema>]` (the string is how it arrives before coercion). The document states the value
 * the client sends: the real schema.
 */
function unwrapCoercion(schema: Json): Json | null {
  const any = schema.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return null;
  const [a, b] = any as Json[];
  const isHint = (s: Json) => isObject(s) && s.type === "string" && (s.format === "integer" || s.format === "numeric");
  if (isHint(a!) && isObject(b) && !isHint(b)) return b;
  if (isHint(b!) && isObject(a)) return a;
  return null;
}

/** `anyOf` of same-typed `const`s (TypeBox's union of literals) as one `enum`, as the generator writes it. */
function literalsToEnum(schema: Json): Json | null {
  const any = schema.anyOf;
  if (!Array.isArray(any) || any.length === 0) return null;
  const type = (any[0] as Json)?.type;
  const plain = (s: unknown) => isObject(s) && "const" in s && s.type === type && Object.keys(s).length === 2;
  if (!any.every(plain)) return null;
  const { anyOf: _, ...rest } = schema;
  return { ...rest, type, enum: any.map((s) => (s as Json).const) };
}

/** `anyOf` of bare types (`string` or `null`) as a type list, as the generator writes it. */
function typesToList(schema: Json): Json | null {
  const any = schema.anyOf;
  const bare = (s: unknown) => isObject(s) && typeof s.type === "string" && Object.keys(s).length === 1;
  if (!Array.isArray(any) || any.length < 2 || !any.every(bare)) return null;
  const { anyOf: _, ...rest } = schema;
  return { ...rest, type: any.map((s) => (s as Json).type) };
}

/** Key-order independent identity of a JSON value. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/**
 * Replaces every subtree of `node` equal to one of `named` (already clean) by a `$ref` to it;
 * `self` names the component being processed, so its own root is kept.
 */
export function useRefs(node: unknown, named: Record<string, unknown>, self?: string): unknown {
  const ids = new Map(Object.entries(named).map(([name, s]) => [canonical(s), name]));
  const walk = (v: unknown, root: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, false));
    if (!isObject(v)) return v;
    const name = ids.get(canonical(v));
    if (name && !(root && name === self)) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, false)]));
  };
  return walk(node, true);
}

/**
 * The schemas of an OpenAPI document in words, shallowly: a schema is named by its `$ref`
 * (`Pet`), its type (`array of Pet`, `string (date-time)`, `one of Cat, Dog`), and its fields one
 * level deep. Local `$ref`s (`#/components/…`, Swagger's `#/definitions/…`) are followed, a
 * chain at most MAX_REF_HOPS long and never in a loop; other files' refs are named, not read.
 * A schema that refers to itself is named where it recurs, so any cycle ends.
 */

export type Json = Record<string, unknown>;

/** Longest `$ref` chain followed (a ref to a ref to …), and deepest `allOf` merged. */
const MAX_REF_HOPS = 16;
const MAX_ALL_OF_DEPTH = 4;
/** Most fields listed for one schema, and characters of one field's description. */
const MAX_FIELDS = 60;
const MAX_FIELD_NOTE = 300;
/** Deepest type phrase (`array of array of …`), most choices named in one, and its longest text. */
const MAX_PHRASE_DEPTH = 4;
const MAX_CHOICES = 20;
const MAX_PHRASE_CHARS = 300;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first line of a description, bounded (field notes stay one line). */
export const note = (v: unknown, max = MAX_FIELD_NOTE): string => {
  if (typeof v !== "string") return "";
  const line = v
    .trim()
    .split(/\r?\n\s*\r?\n/)[0]!
    .replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A local ref's target: a JSON pointer (RFC 6901) into `root`, or undefined. */
function pointer(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(at)) at = at[Number(key)];
    else if (isObject(at) && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at;
}

/** The name a ref gives its target: the pointer's last part (`#/components/schemas/Pet` → Pet). */
export const refName = (ref: string) => {
  const last = ref.split("/").at(-1) ?? ref;
  try {
    return decodeURIComponent(last).replace(/~1/g, "/").replace(/~0/g, "~") || ref;
  } catch {
    return last || ref;
  }
};

/** Reads `$ref`s against the document they are in. */
export class Refs {
  constructor(private readonly root: unknown) {}

  /**
   * `v` with its `$ref` chain followed: the object at its end, and the name of the first ref
   * (the schema's name). An external, dangling or looping ref gives no object, only the name.
   */
  resolve(v: unknown): { value?: Json; name?: string } {
    let name: string | undefined;
    const seen = new Set<string>();
    let at = v;
    for (let hop = 0; isObject(at) && typeof at.$ref === "string"; hop++) {
      const ref = at.$ref;
      name ??= refName(ref);
      if (hop >= MAX_REF_HOPS || seen.has(ref)) return { name };
      seen.add(ref);
      at = pointer(this.root, ref);
    }
    return isObject(at) ? { value: at, name } : { name };
  }

  /** A schema's type in a few words: its name, else its type, items, format and choices. */
  phrase(schema: unknown, depth = 0): string {
    const text = this.words(schema, depth);
    return text.length > MAX_PHRASE_CHARS ? `${text.slice(0, MAX_PHRASE_CHARS - 1)}…` : text;
  }

  private words(schema: unknown, depth: number): string {
    const { value, name } = this.resolve(schema);
    if (name) return `\`${name}\``;
    if (!value) return "any";
    if (depth >= MAX_PHRASE_DEPTH) return "…";
    const list = (key: string) =>
      Array.isArray(value[key])
        ? (value[key] as unknown[]).slice(0, MAX_CHOICES).map((s) => this.phrase(s, depth + 1))
        : null;
    const choice = list("oneOf") ?? list("anyOf");
    if (choice) return `one of ${choice.join(", ")}`;
    const all = list("allOf");
    if (all) return all.length === 1 ? all[0]! : `all of ${all.join(", ")}`;
    const types = (Array.isArray(value.type) ? value.type : [value.type]).filter((t) => typeof t === "string");
    let type = types.filter((t) => t !== "null").join(" or ") || (isObject(value.properties) ? "object" : "any");
    if (type === "array") type = `array of ${this.phrase(value.items, depth + 1)}`;
    if (typeof value.format === "string") type += ` (${value.format})`;
    if (Array.isArray(value.enum) && value.enum.length)
      type += ` (one of: ${value.enum
        .slice(0, 20)
        .map((e) => `\`${String(e)}\``)
        .join(", ")}${value.enum.length > 20 ? ", …" : ""})`;
    if (types.includes("null") || value.nullable === true) type += " or null";
    return type;
  }

  /**
   * The fields of a schema, one level deep, as Markdown list lines: `name` (type, required): note.
   * An array's fields are its items'; `allOf` parts are merged; a ref is followed to list them.
   */
  fields(schema: unknown): string[] {
    const props = new Map<string, unknown>();
    const required = new Set<string>();
    const seen = new Set<Json>();
    const gather = (s: unknown, depth: number) => {
      const { value } = this.resolve(s);
      if (!value || seen.has(value) || depth > MAX_ALL_OF_DEPTH) return;
      seen.add(value);
      if (value.type === "array" && depth === 0) return gather(value.items, depth + 1);
      if (Array.isArray(value.allOf)) for (const part of value.allOf) gather(part, depth + 1);
      if (Array.isArray(value.required)) for (const r of value.required) required.add(String(r));
      if (isObject(value.properties))
        for (const [k, v] of Object.entries(value.properties)) if (!props.has(k)) props.set(k, v);
    };
    gather(schema, 0);
    const lines = [...props].slice(0, MAX_FIELDS).map(([key, prop]) => {
      const text = note(this.resolve(prop).value?.description);
      return `- \`${key}\` (${this.phrase(prop)}${required.has(key) ? ", required" : ""})${text ? `: ${text}` : ""}`;
    });
    if (props.size > MAX_FIELDS) lines.push(`- … and ${props.size - MAX_FIELDS} more fields`);
    return lines;
  }

  /** A schema as Markdown: its type phrase, then its fields. */
  describe(schema: unknown): string {
    const fields = this.fields(schema);
    return [this.phrase(schema), ...(fields.length ? ["", ...fields] : [])].join("\n");
  }
}

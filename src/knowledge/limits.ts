/**
 * Bounds on the fields of a document besides its content, the same for every way in (JSON,
 * ndjson, multipart, the CLI). A title is every passage's field A and the heading of passages
 * without one, so an unbounded title multiplied by the passages of its document; metadata is
 * kept whole and serialised by recursive code (JSON.stringify, the driver), which a value nested
 * a hundred thousand deep overflows.
 */

/** Longest title, in characters (Unicode code points); a longer Markdown heading is text. */
export const MAX_TITLE_CHARS = 1_000;
/** Largest `metadata`, as JSON in UTF-8 bytes. */
export const MAX_METADATA_BYTES = 16 * 1024;
/** Deepest `metadata`: the object itself is level 1, an object or array in it level 2, … */
export const MAX_METADATA_DEPTH = 32;

/** Whether `s` has more than `max` code points; counts only when its UTF-16 length could say so. */
export const longerThan = (s: string, max: number): boolean => {
  if (s.length <= max) return false;
  let n = 0;
  for (const _ of s) if (++n > max) return true;
  return false;
};

/**
 * Whether `value` nests objects or arrays deeper than `max` levels: walked with an explicit
 * stack, so any depth is measured without recursion, and it stops at the first level too deep.
 */
export function nestedDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Why `title` cannot be stored, if it cannot. */
export const titleProblem = (title: string): string | undefined =>
  longerThan(title, MAX_TITLE_CHARS) ? `\`title\` is over ${MAX_TITLE_CHARS} characters` : undefined;

/** Why `metadata` (a JSON object) cannot be stored, if it cannot; else its JSON text. */
export function checkMetadata(metadata: Record<string, unknown>): { json: string } | { reason: string } {
  if (nestedDeeper(metadata, MAX_METADATA_DEPTH))
    return { reason: `\`metadata\` is nested deeper than ${MAX_METADATA_DEPTH} levels` };
  const json = JSON.stringify(metadata);
  // UTF-16 length first: at most 3 UTF-8 bytes per unit, so only a long text is encoded.
  if (json.length * 3 > MAX_METADATA_BYTES && new TextEncoder().encode(json).byteLength > MAX_METADATA_BYTES)
    return { reason: `\`metadata\` is over ${MAX_METADATA_BYTES} bytes as JSON` };
  return { json };
}

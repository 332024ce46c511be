/**
 * Array parsing for postgres.js without `fetch_types`.
 *
 * Why: with `fetch_types` on, postgres.js asks every new connection for the array types right after
 * its handshake, from a promise nobody awaits. When the database goes away during that query (a
 * restart, a failover, a proxy cutting connections), the rejection is unhandled and takes the
 * whole process down. So connections skip that query, and the built-in array types, whose OIDs
 * PostgreSQL fixes, are parsed here from their text form into what postgres.js would have given.
 */

const number = (x: string) => Number(x);
const text = (x: string) => x;

/** Array type OID → how one element is read (as postgres.js reads the element type). */
const ELEMENTS: Record<number, (x: string) => unknown> = {
  1000: (x) => x === "t", // bool[]
  1005: number, // int2[]
  1007: number, // int4[]
  1028: number, // oid[]
  1021: number, // float4[]
  1022: number, // float8[]
  1016: text, // int8[] (postgres.js leaves int8 as text)
  1231: text, // numeric[]
  1009: text, // text[]
  1015: text, // varchar[]
  1014: text, // bpchar[]
  2951: text, // uuid[]
  199: (x) => JSON.parse(x), // json[]
  3807: (x) => JSON.parse(x), // jsonb[]
  1115: (x) => new Date(x), // timestamp[]
  1185: (x) => new Date(x), // timestamptz[]
};

/** Parses PostgreSQL's array text form (`{1,"a b",NULL,{2,3}}`), with quoting, escapes and nesting. */
export function parsePgArray(input: string, element: (x: string) => unknown = text): unknown[] {
  // A lower bound other than 1 is written first: `[0:1]={a,b}`.
  let i = input.startsWith("[") ? input.indexOf("=") + 1 : 0;
  const read = (): unknown[] => {
    const out: unknown[] = [];
    i++; // the "{"
    while (i < input.length && input[i] !== "}") {
      if (input[i] === ",") i++;
      else if (input[i] === "{") out.push(read());
      else if (input[i] === '"') {
        let value = "";
        for (i++; i < input.length && input[i] !== '"'; i++) value += input[i] === "\\" ? input[++i] : input[i];
        i++; // the closing quote
        out.push(element(value));
      } else {
        const start = i;
        while (i < input.length && input[i] !== "," && input[i] !== "}") i++;
        const raw = input.slice(start, i);
        out.push(raw === "NULL" ? null : element(raw));
      }
    }
    i++; // the "}"
    return out;
  };
  return read();
}

/** Writes an array in PostgreSQL's text form (the inverse of parsePgArray). */
export function writePgArray(values: readonly unknown[]): string {
  const one = (x: unknown): string => {
    if (x === null || x === undefined) return "NULL";
    if (Array.isArray(x)) return writePgArray(x);
    const raw = x instanceof Date ? x.toISOString() : typeof x === "object" ? JSON.stringify(x) : String(x);
    return `"${raw.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  };
  return `{${values.map(one).join(",")}}`;
}

/** postgres.js `types` entries that read the built-in array types. */
export const pgArrayTypes = Object.fromEntries(
  Object.entries(ELEMENTS).map(([oid, element]) => [
    `array_${oid}`,
    {
      to: Number(oid),
      from: [Number(oid)],
      // Drizzle passes arrays already written as literals; anything else is written the same way.
      serialize: (x: unknown) => (Array.isArray(x) ? writePgArray(x) : String(x)),
      parse: (x: string) => parsePgArray(x, element),
    },
  ]),
);

/** `CORS_ORIGINS` as a setting: parsed and checked at start (config/env.ts); applied by http/cors.ts. */

/** The allowed origins: `"*"` for any, else an exact list (scheme://host[:port], no path). */
export type CorsOrigins = "*" | string[];

/** Parses `CORS_ORIGINS`: empty → off; `*` → any; else comma-separated origins, each checked. */
export function parseCorsOrigins(raw: string | undefined): CorsOrigins | undefined {
  const items = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) return undefined;
  if (items.includes("*")) {
    if (items.length > 1) throw new Error("`*` cannot be combined with other origins");
    return "*";
  }
  return items.map((o) => {
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new Error(`'${o}' is not an origin (scheme://host[:port])`);
    }
    if (!/^https?:$/.test(url.protocol) || url.origin !== o.replace(/\/$/, "")) {
      throw new Error(`'${o}' is not an origin (scheme://host[:port], no path)`);
    }
    return url.origin;
  });
}

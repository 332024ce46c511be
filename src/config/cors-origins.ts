/** `CORS_ORIGINS` as a setting: parsed and checked at start (config/env.ts); applied by http/cors.ts. */

/**
 * The allowed origins: `"*"` for any, else a list of exact origins (scheme://host[:port], no
 * path) and subdomain wildcards (`https://*.example.com`: any subdomain of example.com, at any
 * depth, with that scheme and port; not example.com itself).
 */
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
    const wildcard = /^(https?:\/\/)\*\.(.+)$/i.exec(o);
    // A wildcard is checked as the origin it stands for, with one label in place of the `*`.
    const checked = wildcard ? `${wildcard[1]}x.${wildcard[2]}` : o;
    if (checked.includes("*"))
      throw new Error(`'${o}' is not an origin: \`*\` may only stand for subdomains, as in https://*.example.com`);
    let url: URL;
    try {
      url = new URL(checked);
    } catch {
      throw new Error(`'${o}' is not an origin (scheme://host[:port])`);
    }
    if (!/^https?:$/.test(url.protocol) || url.origin !== checked.replace(/\/$/, "").toLowerCase()) {
      throw new Error(`'${o}' is not an origin (scheme://host[:port], no path)`);
    }
    return wildcard ? `${url.protocol}//*.${url.host.slice(2)}` : url.origin;
  });
}

/** Whether `origin` (as a browser sends it) is one of `origins`. */
export function originAllowed(origins: CorsOrigins, origin: string): boolean {
  if (origins === "*") return true;
  for (const allowed of origins) {
    if (allowed === origin) return true;
    const star = allowed.indexOf("//*.");
    if (star < 0) continue;
    // https://*.example.com[:port] → https:// + one or more labels + .example.com[:port]
    const scheme = allowed.slice(0, star + 2);
    const suffix = allowed.slice(star + 3);
    if (!origin.startsWith(scheme) || !origin.endsWith(suffix)) continue;
    const sub = origin.slice(scheme.length, origin.length - suffix.length);
    if (/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(sub)) return true;
  }
  return false;
}

/**
 * A new source's settings, checked beyond their schema: the start URL (absolute http(s), no
 * credentials, normalised, and not a private address unless those are allowed: checked after DNS
 * here too, so a mistake is a 400 now rather than a failed sync later), and its globs.
 */
import type { SourceOptions } from "../config/options.ts";
import type { SourceType } from "../contract/sources.ts";
import { ApiError } from "../http/errors.ts";
// The two light modules, not content/index.ts (which loads the DOM and Markdown libraries).
import { globToRegExp } from "./content/glob.ts";
import { normalizeUrl } from "./content/links.ts";
import { createUrlGuard } from "./fetch/ssrf.ts";
import type { NewSource } from "./store.ts";

export interface SourceInput {
  url: string;
  type?: SourceType;
  include?: string[];
  exclude?: string[];
  max_pages?: number;
  max_depth?: number;
  keep_query_strings?: boolean;
  refresh_interval_hours?: number | null;
  allow_large_deletions?: boolean;
}

const invalid = (message: string, param: string) => new ApiError("invalid_request", message, { param });

export async function checkSourceInput(body: SourceInput, options: SourceOptions): Promise<Omit<NewSource, "kbId">> {
  let parsed: URL | undefined;
  try {
    parsed = new URL(body.url.trim());
  } catch {}
  if (!parsed || !/^https?:$/.test(parsed.protocol))
    throw invalid("Invalid field 'url': an absolute http(s) URL.", "url");
  if (parsed.username || parsed.password)
    throw invalid("Invalid field 'url': it must not carry credentials (user:password@).", "url");
  const keepQuery = body.keep_query_strings ?? false;
  const url = normalizeUrl(parsed, { keepQuery });
  if (!url) throw invalid("Invalid field 'url': an absolute http(s) URL.", "url");
  const verdict = await createUrlGuard({ allowPrivateNetworks: options.allowPrivateNetworks })(new URL(url));
  // A name that does not resolve now may later (a site being set up): its sync will say so.
  if (!verdict.ok && verdict.reason !== "dns_failure")
    throw invalid(
      `Invalid field 'url': ${verdict.reason === "blocked_address" ? "it is a private, loopback, link-local or metadata address (SOURCES_ALLOW_PRIVATE_NETWORKS=true allows them)" : "an http(s) URL"}.`,
      "url",
    );
  for (const param of ["include", "exclude"] as const)
    for (const glob of body[param] ?? []) {
      try {
        globToRegExp(glob);
      } catch {
        throw invalid(`Invalid field '${param}': '${glob.slice(0, 100)}' is not a glob.`, param);
      }
    }
  return {
    url,
    type: body.type ?? "auto",
    include: body.include ?? [],
    exclude: body.exclude ?? [],
    maxPages: body.max_pages ?? 1000,
    maxDepth: body.max_depth ?? 10,
    keepQuery,
    refreshIntervalHours: body.refresh_interval_hours ?? null,
    allowLargeDeletions: body.allow_large_deletions ?? false,
  };
}

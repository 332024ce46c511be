/**
 * A page's links and the URL rules a crawler needs to visit each page once and stay on the
 * site: normalisation (so `/docs/a/`, `/docs/a#x` and `/docs/a?ref=nav` are one page), the
 * scope check (same origin, under the start path, include/exclude globs) and a guess from the
 * extension that a URL is not a page at all (images, archives, assets are never fetched).
 */
import { globMatcher } from "./glob.ts";

/** How URLs are folded into one key per page. */
export interface NormalizeOptions {
  /** Keep the query string (sites that route pages by `?page=`); dropped by default. */
  keepQuery?: boolean;
}

/** Schemes a crawler can fetch; `mailto:`, `javascript:`, `tel:`, `data:` and the rest are not pages. */
const FETCHABLE = new Set(["http:", "https:"]);

/**
 * The crawl key of a URL, or undefined when it is not an http(s) URL. The fragment goes (same
 * page), the query goes unless kept (tracking and view parameters), a trailing slash goes
 * except on the root (servers answer `/a/` and `/a` with the same page), and WHATWG URL already
 * lowercases the host and drops the scheme's default port.
 */
export function normalizeUrl(input: string | URL, options: NormalizeOptions = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (!FETCHABLE.has(url.protocol)) return undefined;
  url.hash = "";
  if (!options.keepQuery) url.search = "";
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) url.pathname = url.pathname.replace(/\/+$/, "") || "/";
  return url.href;
}

/** Resolves an href against a base; undefined when it cannot be a page (bad URL, other scheme). */
export function resolveHref(href: string, base: string | URL, options: NormalizeOptions = {}): string | undefined {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith("#")) return undefined;
  try {
    return normalizeUrl(new URL(trimmed, base), options);
  } catch {
    return undefined;
  }
}

/** The minimal DOM a link reader needs: linkedom's and a browser's documents both fit. */
export interface LinkSource {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
}

/**
 * The distinct page links of a document, in order of first appearance, resolved against
 * `<base href>` (itself resolved against the page URL) and normalised. Links inside navigation
 * count: they are how a crawler finds the rest of the site.
 */
export function pageLinks(document: LinkSource, pageUrl: string, options: NormalizeOptions = {}): string[] {
  let base: string = pageUrl;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  if (baseHref) {
    try {
      base = new URL(baseHref.trim(), pageUrl).href;
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  const seen = new Set<string>();
  for (const a of document.querySelectorAll("a[href]")) {
    const url = resolveHref(a.getAttribute("href") ?? "", base, options);
    if (url) seen.add(url);
  }
  return [...seen];
}

/**
 * Extensions of files that are not HTML pages. A crawler skips them before fetching; a page
 * served under such a name is rare on documentation sites, and the Content-Type check after
 * fetching still catches HTML served without an extension.
 */
const NOT_PAGES =
  /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|zip|tar|gz|tgz|bz2|xz|7z|rar|pdf|mp4|webm|mov|avi|mkv|mp3|wav|ogg|flac|css|js|mjs|cjs|map|json|xml|rss|atom|woff2?|ttf|otf|eot|exe|dmg|msi|deb|rpm|apk|iso|wasm|bin|csv|docx?|xlsx?|pptx?)$/i;

/**
 * Whether a URL's path looks like a page (no extension of a known non-HTML file), or ends in one
 * of `documents` (lower-case extensions without the dot: the file formats a crawl converts).
 */
export function looksLikePage(url: string | URL, documents: readonly string[] = []): boolean {
  try {
    const path = new URL(url).pathname;
    const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
    return (ext !== undefined && documents.includes(ext)) || !NOT_PAGES.test(path);
  } catch {
    return false;
  }
}

/** Where a crawl may go. */
export interface ScopeOptions {
  /** Path prefix pages must sit under; defaults to the start URL's path (without trailing slash). */
  prefix?: string;
  /** Globs over the URL path (`*` within a segment, `**` across); when given, a page must match one. */
  include?: readonly string[];
  /** Globs over the URL path; a match excludes the page even when it is included. */
  exclude?: readonly string[];
  /** File extensions that are documents too (`pdf`, `yaml`): in scope despite not being pages. */
  documents?: readonly string[];
}

/** Decides whether a URL belongs to the crawl started at `startUrl`. */
export type Scope = (url: string | URL) => boolean;

/** Normalises a path prefix: no trailing slash (none at all for the root), so `/docs/` and `/docs` mean the same subtree. */
function prefixOf(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  // The root prefix is empty: every path of the origin is under it.
  if (!trimmed) return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/**
 * The scope of a crawl: same origin as the start URL (scheme, host and port all equal, so
 * `http:` and another port are other sites), a path equal to the prefix or under it as a
 * whole segment (`/docs` and `/docs/x`, never `/docs-old`), the include globs if any, and no
 * exclude glob (exclude wins). Non-page extensions are out of scope too.
 */
export function crawlScope(startUrl: string | URL, options: ScopeOptions = {}): Scope {
  const start = new URL(startUrl);
  const prefix = prefixOf(options.prefix ?? start.pathname);
  const include = options.include?.length ? globMatcher(options.include) : undefined;
  const exclude = options.exclude?.length ? globMatcher(options.exclude) : undefined;
  return (input) => {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return false;
    }
    if (url.origin !== start.origin || !FETCHABLE.has(url.protocol)) return false;
    const path = url.pathname;
    if (prefix && path !== prefix && !path.startsWith(`${prefix}/`)) return false;
    if (!looksLikePage(url, options.documents)) return false;
    if (include && !include(path)) return false;
    return !exclude?.(path);
  };
}

/**
 * The address a docs site serves a file at: the site's base URL (the address of the folder) and
 * the file's path in that folder. The one rule for files whose front matter names no `url`, in
 * the CLI's `ingest --base-url` and the multipart uploads' `base_url`, so a source cited in a
 * reply opens the page a reader knows, not a `.md` file the site never serves.
 *
 * Site generators map a page to its address differently, so the style is a choice:
 * - `clean` (the default; Docusaurus, VitePress with cleanUrls): `guide/setup.md` → `guide/setup`
 * - `slash` (MkDocs, Hugo): `guide/setup.md` → `guide/setup/`
 * - `html` (VitePress, Jekyll): `guide/setup.md` → `guide/setup.html`
 * - `keep`: the path as it is, `guide/setup.md`
 * Only Markdown files (.md, .markdown, .mdx) are renamed. A Markdown `index`, `_index` or
 * `README` (any case) is its folder's page: `guide/index.md` → `guide/` (`guide/index.html` in
 * `html`); so is `index.html` in `clean` and `slash`. Other files (.txt, .html) keep their names.
 */

export const URL_STYLES = ["clean", "slash", "html", "keep"] as const;
export type UrlStyle = (typeof URL_STYLES)[number];
export const DEFAULT_URL_STYLE: UrlStyle = "clean";

export const isUrlStyle = (v: unknown): v is UrlStyle => URL_STYLES.includes(v as UrlStyle);

const MARKDOWN = /\.(md|markdown|mdx)$/i;
const FOLDER_PAGE = /^(index|_index|readme)$/i;
const HTML_INDEX = /^index\.html?$/i;

/**
 * The base URL as a folder: an absolute http(s) URL without credentials, query or fragment, its
 * path ending in `/` (`https://docs.example.com/v2` is the folder `v2/`, as a user means it:
 * resolving against it as given would drop `v2`). Or why it cannot be one.
 */
export function docsBase(baseUrl: string): { base: URL } | { reason: string } {
  let base: URL;
  try {
    base = new URL(baseUrl.trim());
  } catch {
    return { reason: "the base URL must be an absolute http(s) URL" };
  }
  if (!/^https?:$/.test(base.protocol)) return { reason: "the base URL must be an absolute http(s) URL" };
  if (base.username || base.password) return { reason: "the base URL must not carry credentials (user:password@)" };
  if (base.search || base.hash) return { reason: "the base URL must not have a query (?…) or a fragment (#…)" };
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  return { base };
}

/**
 * The URL of the file at `relativePath` (`/` or `\` between folders) under `baseUrl`, in `style`;
 * or why there is none. Each path segment is percent-encoded (spaces, non-ASCII, `#`, `?`, `%`),
 * so a name is never read as a query or a fragment. A path that leaves the folder (`..`) has none.
 */
export function docsUrl(
  baseUrl: string,
  relativePath: string,
  style: UrlStyle = DEFAULT_URL_STYLE,
): { url: string } | { reason: string } {
  const checked = docsBase(baseUrl);
  if ("reason" in checked) return checked;
  const segments = relativePath.split(/[\\/]/).filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) return { reason: `the path ${relativePath} leaves the folder (..)` };
  const name = segments.pop();
  if (name === undefined) return { reason: "the file has no name" };
  const page = pageName(name, style);
  let path: string;
  try {
    path = [...segments, ...(page ? [page] : [])].map(encodeURIComponent).join("/");
  } catch {
    // encodeURIComponent refuses a lone surrogate: a name that is not Unicode text.
    return { reason: `the name ${relativePath} cannot be part of a URL` };
  }
  const folderPage = page === "" || (style === "slash" && MARKDOWN.test(name));
  const href = new URL(folderPage && path ? `${path}/` : path, checked.base).href;
  return { url: href };
}

/** The last segment of the address of the file `name`: "" for its folder's page. */
function pageName(name: string, style: UrlStyle): string {
  if (style === "keep") return name;
  if (!MARKDOWN.test(name)) return style !== "html" && HTML_INDEX.test(name) ? "" : name;
  const stem = name.replace(MARKDOWN, "");
  if (!stem) return name; // `.md` alone: no page name to make
  if (FOLDER_PAGE.test(stem)) return style === "html" ? "index.html" : "";
  return style === "html" ? `${stem}.html` : stem;
}

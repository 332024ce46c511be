/**
 * A small glob matcher for URL paths, written here rather than taken from a package: crawl
 * include/exclude rules need only `*` (within one path segment), `**` (across segments) and
 * `?` (one character), and path globs must not treat dots or brace sets specially.
 */

/** A regular expression for one glob, anchored at both ends. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      // `/**/` also matches a single `/`, so `/docs/**/a` matches `/docs/a`.
      if (glob[i + 1] === "/") {
        i++;
        source += "(?:.*/)?";
      } else {
        source += ".*";
      }
    } else if (c === "*") {
      source += "[^/]*";
    } else if (c === "?") {
      source += "[^/]";
    } else {
      source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

/**
 * A test over many globs: true when the path matches any. A glob ending in `/**` also matches
 * the folder itself (`/blog/**` matches `/blog`), since normalised URLs carry no trailing slash.
 */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.flatMap((g) => {
    const all = [globToRegExp(g)];
    if (g.endsWith("/**")) all.push(globToRegExp(g.slice(0, -3) || "/"));
    return all;
  });
  return (path) => patterns.some((p) => p.test(path));
}

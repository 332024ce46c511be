/** The crawl fixture site (tests/fixtures/site/crawl): its files, redirects and content types, for the crawl tests' servers. */
import { existsSync } from "node:fs";
import { join } from "node:path";

export const SITE = join(import.meta.dir, "..", "fixtures", "site", "crawl");

export const REDIRECTS: Record<string, string> = {
  "/old": "/docs/new",
  "/docs/loop": "/docs/loop2",
  "/docs/loop2": "/docs/loop",
};
export const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  xml: "application/xml",
  txt: "text/plain",
};

/** The fixture file serving `path`, if any (`/` → index.html, `/docs/a` → docs/a or docs/a.html). */
export function fileFor(path: string): string | undefined {
  const candidates = path === "/" ? ["index.html"] : [path.slice(1), `${path.slice(1)}.html`];
  return candidates.map((c) => join(SITE, c)).find((f) => existsSync(f) && !f.endsWith("/"));
}

/**
 * A documentation site a test can change between syncs: pages in a map (path, or path and query,
 * → HTML body), served
 * on 127.0.0.1 with ETag validators (304 to a matching If-None-Match), a sitemap of the pages
 * listed in it, and switches for the traps a sync must survive (every page failing, one slow page).
 * Counts requests and 304s per path, so a test checks what the site saw.
 */

export interface DocsSite {
  origin: string;
  pages: Map<string, string>;
  /** Paths answered 500 (the site's outage), whatever `pages` holds. */
  broken: Set<string>;
  /** Requests per path, and how many were answered 304. */
  requests: Map<string, number>;
  notModified: number;
  /** Holds every page request until the returned function is called: a sync that stays running. */
  hold(): () => void;
  reset(): void;
  stop(): void;
}

/** A page of the site: its own text, the site's chrome (nav, footer) and links to `links`. */
export function docPage(
  title: string,
  body: string,
  links: string[] = [],
  footer = "Copyright Example Corp. All rights reserved. Read our privacy notice and terms.",
): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> ${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</nav>
<main><h1>${title}</h1>${body}</main>
<div class="site-note"><p>${footer}</p></div>
</body></html>`;
}

export function serveDocsSite(initial: Record<string, string>, options: { robots?: string } = {}): DocsSite {
  const pages = new Map(Object.entries(initial));
  const broken = new Set<string>();
  const requests = new Map<string, number>();
  let notModified = 0;
  let held: Promise<void> | undefined;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (held) await held;
      const { pathname: path, search } = new URL(request.url);
      requests.set(path, (requests.get(path) ?? 0) + 1);
      if (path === "/robots.txt")
        return new Response(options.robots ?? `User-agent: *\nAllow: /\n\nSitemap: ${site.origin}/sitemap.xml\n`);
      if (path === "/sitemap.xml") {
        const urls = [...pages.keys()].map((p) => `<url><loc>${site.origin}${p}</loc></url>`).join("");
        return new Response(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
          {
            headers: { "content-type": "application/xml" },
          },
        );
      }
      if (broken.has(path) || broken.has("*")) return new Response("down", { status: 500 });
      const body = pages.get(path + search) ?? pages.get(path);
      if (body === undefined) return new Response("not found", { status: 404 });
      const etag = `"${Bun.hash(body).toString(16)}"`;
      if (request.headers.get("if-none-match") === etag) {
        notModified++;
        return new Response(null, { status: 304, headers: { etag } });
      }
      return new Response(body, { headers: { "content-type": "text/html; charset=utf-8", etag } });
    },
  });
  const site: DocsSite = {
    origin: `http://127.0.0.1:${server.port}`,
    pages,
    broken,
    requests,
    get notModified() {
      return notModified;
    },
    set notModified(v) {
      notModified = v;
    },
    hold() {
      let release = () => {};
      held = new Promise<void>((resolve) => {
        release = () => {
          held = undefined;
          resolve();
        };
      });
      return release;
    },
    reset() {
      requests.clear();
      notModified = 0;
    },
    stop: () => void server.stop(true),
  };
  return site;
}

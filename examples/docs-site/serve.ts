/**
 * A documentation site on 127.0.0.1 for trying web sources locally (README, "Web sources"):
 * `bun examples/docs-site/serve.ts [folder] [port]` serves the folder's files (`/docs/x` →
 * docs/x.html), a /sitemap.xml listing every page, ETag and Last-Modified validators (a re-sync
 * gets 304 for a page that did not change), and 404 for anything else.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(process.argv[2] ?? import.meta.dir);
const port = Number(process.argv[3] ?? 4000);
const TYPES: Record<string, string> = { html: "text/html; charset=utf-8", txt: "text/plain; charset=utf-8" };

function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith(".html") ? [join(dir, e.name)] : [],
  );
}

const pathOf = (file: string) =>
  `/${relative(root, file)
    .replace(/\.html$/, "")
    .replace(/(^|\/)index$/, "")}`;

function fileFor(path: string): string | undefined {
  const base = join(root, decodeURIComponent(path));
  if (!base.startsWith(root)) return undefined;
  for (const candidate of [base, `${base}.html`, join(base, "index.html")]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return undefined;
}

const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/sitemap.xml") {
      const locs = pages(root).map((f) => `<url><loc>${url.origin}${pathOf(f)}</loc></url>`);
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join("")}</urlset>\n`;
      return new Response(xml, { headers: { "content-type": "application/xml" } });
    }
    const file = url.pathname.endsWith(".ts") ? undefined : fileFor(url.pathname);
    if (!file) return new Response("Not found", { status: 404 });
    const body = readFileSync(file);
    const etag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
    const headers = {
      etag,
      "last-modified": statSync(file).mtime.toUTCString(),
      "content-type": TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream",
    };
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { headers });
  },
});
console.log(`docs site on http://127.0.0.1:${server.port}/ (${root})`);

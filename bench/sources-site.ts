/**
 * The web-source bench's documentation site, in a process of its own so its memory and CPU are
 * not Parley's: `bun bench/sources-site.ts --pages 1000 [--seed 1]` prints `ready <port>`.
 * Every page is made once, deterministically from the seed: shared chrome (header nav, a sidebar
 * of sections, a footer), a title, headed sections of prose, a code block, 5–15 links to other
 * pages, about 3–6 KB of HTML. A sitemap lists 95% of the pages (the rest are found by links);
 * each page has an ETag and a Last-Modified, and a matching If-None-Match (or If-Modified-Since)
 * is answered 304. `POST /__change?fraction=0.1` rewrites that share of the pages (new body, new
 * validators) and answers how many; `GET /__stats` the requests and 304s since the last change.
 */

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const PAGES = arg("pages", 1000);
const SEED = arg("seed", 1);

/** mulberry32: a small seeded PRNG, so the site is the same on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = "ka lo mi ne ru sa ti vo pe da gu ri no ba le xi zo fa mu te".split(" ");
const COMMON = "the a of to and in is for with that on by this from as it be are you can your".split(" ");
const random = prng(SEED);
const pick = <T>(xs: readonly T[], r = random) => xs[Math.floor(r() * xs.length)]!;
// A vocabulary of 3,000 made-up words, plus common words so the prose has their frequencies.
const VOCAB = Array.from({ length: 3000 }, () =>
  Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(SYLLABLES)).join(""),
);
const word = (r: () => number) => (r() < 0.35 ? pick(COMMON, r) : VOCAB[Math.floor(r() ** 2 * VOCAB.length)]!);
const words = (r: () => number, n: number) => Array.from({ length: n }, () => word(r)).join(" ");
const sentence = (r: () => number) => {
  const s = words(r, 8 + Math.floor(r() * 12));
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
};
const title = (r: () => number) => words(r, 2 + Math.floor(r() * 3)).replace(/(^|\s)\S/g, (c) => c.toUpperCase());

const SECTIONS = Array.from({ length: 12 }, (_, i) => `section-${i + 1}`);
const pathOf = (i: number) => (i === 0 ? "/" : `/docs/${SECTIONS[i % SECTIONS.length]}/page-${i}`);

// The chrome every page shares: what the boilerplate pass must tell from each page's own text.
const HEADER = `<header class="top"><a class="brand" href="/">Kalomi Docs</a><nav class="main">${SECTIONS.map(
  (s, k) => `<a href="${pathOf(k + 1)}">${s.replace("-", " ")}</a>`,
).join(" ")}<a href="${pathOf(1)}">Guides</a><a href="${pathOf(2)}">API</a></nav>
<form class="search" action="/search"><input name="q" placeholder="Search the docs"></form></header>`;
const SIDEBAR = `<aside class="sidebar"><ul>${SECTIONS.map(
  (s, k) => `<li><a href="${pathOf(k + 1)}">${s}: getting started</a></li>`,
).join("")}</ul></aside>`;
const FOOTER = `<footer><p>Copyright 2026 Kalomi Project contributors. Released under the MIT license.</p>
<p><a href="/">Home</a> · <a href="${pathOf(3)}">Changelog</a> · Edit this page on GitHub.</p></footer>`;

function page(i: number, version: number): string {
  const r = prng(SEED * 1_000_003 + i * 7919 + version * 104_729);
  const t = `${title(r)}${version ? ` (v${version})` : ""}`;
  const links = new Set<number>();
  // Next pages first, so the site is connected even through the pages the sitemap leaves out.
  links.add((i + 1) % PAGES);
  const want = 5 + Math.floor(r() * 11);
  while (links.size < Math.min(want, PAGES - 1)) links.add(Math.floor(r() * PAGES));
  links.delete(i);
  const sections: string[] = [];
  const nSections = 2 + Math.floor(r() * 3);
  for (let s = 0; s < nSections; s++) {
    const paras = Array.from(
      { length: 1 + Math.floor(r() * 2) },
      () => `<p>${Array.from({ length: 2 + Math.floor(r() * 3) }, () => sentence(r)).join(" ")}</p>`,
    ).join("\n");
    sections.push(`<h2 id="s${s}">${title(r)}</h2>\n${paras}`);
  }
  const fn = VOCAB[Math.floor(r() * VOCAB.length)];
  const code = `<pre><code class="language-ts">import { ${fn} } from "kalomi";\n\nconst client = ${fn}({ region: "${word(r)}", retries: ${Math.floor(r() * 5)} });\nawait client.${word(r)}("${word(r)}");\n</code></pre>`;
  const related = [...links].map((j) => `<li><a href="${pathOf(j)}">${title(prng(j))}</a></li>`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${t} | Kalomi Docs</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/site.css"></head>
<body>${HEADER}<div class="layout">${SIDEBAR}<main><article><h1>${t}</h1>
<p class="lead">${sentence(r)} ${sentence(r)}</p>
${sections[0]}\n${code}\n${sections.slice(1).join("\n")}
<h2>See also</h2><ul class="related">${related}</ul></article></main></div>${FOOTER}</body></html>`;
}

interface Served {
  body: string;
  etag: string;
  lastModified: string;
}
const versions = new Array<number>(PAGES).fill(0);
const served = new Map<string, Served>();
function render(i: number) {
  const body = page(i, versions[i]!);
  const lastModified = new Date(Date.UTC(2026, 0, 1) + versions[i]! * 86_400_000).toUTCString();
  served.set(pathOf(i), { body, etag: `"${Bun.hash(body).toString(16)}"`, lastModified });
}
for (let i = 0; i < PAGES; i++) render(i);

let requests = 0;
let notModified = 0;
let changes = 0;
const siteServer = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === "/__stats") return Response.json({ requests, notModified, pages: PAGES });
    if (path === "/__change" && request.method === "POST") {
      // Every (1/fraction)-th page gets a new version, a different page set on each call.
      const step = Math.max(1, Math.round(1 / Number(url.searchParams.get("fraction") ?? 0.1)));
      changes++;
      let changed = 0;
      for (let i = changes % step; i < PAGES; i += step) {
        versions[i]!++;
        render(i);
        changed++;
      }
      requests = 0;
      notModified = 0;
      return Response.json({ changed });
    }
    requests++;
    const origin = url.origin;
    if (path === "/robots.txt")
      return new Response(`User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`, {
        headers: { "content-type": "text/plain" },
      });
    if (path === "/sitemap.xml") {
      const urls: string[] = [];
      for (let i = 0; i < PAGES; i++) if (i % 20 !== 19) urls.push(`<url><loc>${origin}${pathOf(i)}</loc></url>`);
      return new Response(
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("\n")}</urlset>`,
        { headers: { "content-type": "application/xml" } },
      );
    }
    const hit = served.get(path);
    if (!hit) return new Response("not found", { status: 404 });
    const headers = { etag: hit.etag, "last-modified": hit.lastModified };
    const inm = request.headers.get("if-none-match");
    const ims = request.headers.get("if-modified-since");
    if (inm ? inm === hit.etag : ims === hit.lastModified) {
      notModified++;
      return new Response(null, { status: 304, headers });
    }
    return new Response(hit.body, { headers: { ...headers, "content-type": "text/html; charset=utf-8" } });
  },
});

const sizes = [...served.values()].map((s) => s.body.length);
console.error(
  `site: ${PAGES} pages, HTML ${Math.min(...sizes)}–${Math.max(...sizes)} bytes (mean ${Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length)})`,
);
console.log(`ready ${siteServer.port}`);
process.on("SIGTERM", () => {
  siteServer.stop(true);
  process.exit(0);
});

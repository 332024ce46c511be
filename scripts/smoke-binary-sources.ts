/**
 * The binary's web sources (scripts/smoke-binary.ts): the crawler's libraries (linkedom,
 * Readability, turndown, robots-parser, fast-xml-parser) run from the compiled file. A small
 * site served here is added as a source; its sync must store every page, a sitemap-only one too.
 */
export async function checkSourceSync(
  base: string,
  adminKey: string,
  check: (cond: unknown, what: string) => void,
): Promise<void> {
  const pages: Record<string, string> = {
    "/": `<html><head><title>Home</title></head><body><nav><a href="/a">A</a></nav><main><h1>Home</h1><p>Gadgets.</p></main><footer>© Example</footer></body></html>`,
    "/a": `<html><head><title>A</title></head><body><main><h1>Gadget A</h1><p>Gadget A hums quietly.</p></main></body></html>`,
    "/b": `<html><head><title>B</title></head><body><div class="content"><h1>Gadget B</h1><p>Gadget B only in the sitemap.</p></div></body></html>`,
  };
  let origin = "";
  const site: ReturnType<typeof Bun.serve> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request): Response {
      const path = new URL(request.url).pathname;
      if (path === "/sitemap.xml") {
        const locs = Object.keys(pages).map((p) => `<url><loc>${origin}${p}</loc></url>`);
        return new Response(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join("")}</urlset>`);
      }
      const body = pages[path];
      return body
        ? new Response(body, { headers: { "content-type": "text/html" } })
        : new Response("", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${site.port}`;
  try {
    const headers = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" };
    const kb = (await (
      await fetch(`${base}/v1/knowledge_bases`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "smoke-site" }),
      })
    ).json()) as { id: string };
    const path = `${base}/v1/knowledge_bases/${kb.id}/sources`;
    const res = await fetch(path, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: `${origin}/` }),
    });
    const source = (await res.json()) as { id: string };
    check(res.status === 201, "a web source is added (201)");
    let sync: { status: string; pages: { created: number } } | undefined;
    for (const until = Date.now() + 30_000; Date.now() < until; await Bun.sleep(100)) {
      sync = ((await (await fetch(`${path}/${source.id}`, { headers })).json()) as { last_sync: typeof sync })
        .last_sync;
      if (sync?.status !== "running") break;
    }
    check(
      sync?.status === "completed" && sync.pages.created === 3,
      "its sync stores the site's 3 pages from the binary",
    );
  } finally {
    site.stop(true);
  }
}

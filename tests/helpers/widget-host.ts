/**
 * A site that embeds the "Ask AI" widget, for the browser tests: one page on its own loopback
 * origin holding exactly the documented snippet, served under a strict Content-Security-Policy
 * (nothing inline, no styles at all, scripts and connections only from Parley's origin), so a
 * test sees what a careful site sees. Works with a fake Parley or a real server alike.
 */

export interface WidgetHost {
  /** The page's URL (another origin than Parley's). */
  url: string;
  origin: string;
  stop(): void;
}

/** The snippet docs/widget.md documents, for `parleyUrl` (the server's base, no trailing slash). */
export const snippet = (parleyUrl: string, attrs: Record<string, string>) =>
  `<script src="${parleyUrl}/widget.js" ${Object.entries(attrs)
    .map(([k, v]) => `${k}="${v.replaceAll('"', "&quot;")}"`)
    .join(" ")} async></script>`;

/** The CSP a site needs for the widget, and nothing more (docs/widget.md). */
export const hostCsp = (parleyOrigin: string) =>
  `default-src 'none'; script-src ${parleyOrigin}; connect-src ${parleyOrigin}; style-src 'none'`;

export function startWidgetHost(parleyUrl: string, attrs: Record<string, string>): WidgetHost {
  const parleyOrigin = new URL(parleyUrl).origin;
  const page = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A site</title></head>
<body>
<main><h1>A site with the widget</h1><p>Some content.</p></main>
${snippet(parleyUrl, attrs)}
</body>
</html>`;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(page, {
        headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": hostCsp(parleyOrigin) },
      }),
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return { url: `${origin}/`, origin, stop: () => void server.stop(true) };
}

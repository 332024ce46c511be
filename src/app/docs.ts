/**
 * GET /docs: the API reference page (Scalar), served entirely by Parley — the page, its script
 * and the document — so it renders on a closed network. The script (vendor/scalar/standalone.js,
 * 4 MB) is handed in by the runtime, which can read files (`with { type: "file" }` embeds it in
 * the binary); this module stays Web-standard.
 */
import { Elysia } from "elysia";

/** Returns the reference UI's script (Scalar's standalone bundle) as a body. */
export type DocsScript = () => BodyInit | Promise<BodyInit>;

// No remote fonts, no telemetry, no "Ask AI"/MCP buttons: nothing on this page leaves the server.
const CONFIG = {
  url: "/v1/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  defaultOpenAllTags: true,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: "json",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley API</title>
</head>
<body>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>Scalar.createApiReference("#app", ${JSON.stringify(CONFIG)});</script>
</body>
</html>
`;

/** /docs and /docs/scalar.js; without `script` the page says how to get the UI instead of loading a CDN. */
export function docsRoutes(script?: DocsScript) {
  const page = script
    ? PAGE
    : PAGE.replace(
        /<script[\s\S]*<\/script>\n/,
        '<p>The reference UI is not bundled in this build; the document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>\n',
      );
  const app = new Elysia().get(
    "/docs",
    () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
    { detail: { hide: true } },
  );
  if (!script) return app; // /docs/scalar.js is then the app's ordinary JSON 404
  return app.get(
    "/docs/scalar.js",
    async () =>
      new Response(await script(), {
        headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
      }),
    { detail: { hide: true } },
  );
}

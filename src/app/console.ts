/**
 * GET /console: the browser console (console/, built into vendor/console/), served entirely by
 * Parley under a strict Content-Security-Policy: scripts, styles and requests from this origin
 * only, no inline script or style, no frames, no plugins. The files are handed in by the runtime
 * (`with { type: "file" }` embeds them in the binary); this module stays Web-standard. Without
 * them, /console says how to get them instead of loading anything from elsewhere.
 */
import { Elysia } from "elysia";

/** The console's files: index.html, console.js, console.css, each as a body. */
export type ConsoleAssets = Record<"index.html" | "console.js" | "console.css", () => BodyInit | Promise<BodyInit>>;

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  // Revalidated on every load: the file names carry no hash, and an upgrade must not serve a stale bundle.
  "cache-control": "no-cache",
};

const TYPES = {
  "index.html": "text/html; charset=utf-8",
  "console.js": "text/javascript; charset=utf-8",
  "console.css": "text/css; charset=utf-8",
} as const;

const MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Parley console</title></head>
<body><p>The console is not bundled in this build. Run <code>bun run build:console</code>, or use the API (<a href="/docs">/docs</a>).</p></body></html>`;

export function consoleRoutes(assets?: ConsoleAssets) {
  const file = (name: keyof typeof TYPES) => async () => {
    if (!assets) return new Response(MISSING, { headers: { ...SECURITY, "content-type": TYPES["index.html"] } });
    return new Response(await assets[name](), { headers: { ...SECURITY, "content-type": TYPES[name] } });
  };
  const hide = { detail: { hide: true } };
  const app = new Elysia().get("/console", file("index.html"), hide).get("/console/", file("index.html"), hide);
  if (!assets) return app;
  return app
    .get("/console/console.js", file("console.js"), hide)
    .get("/console/console.css", file("console.css"), hide);
}

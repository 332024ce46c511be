/**
 * GET /widget.js: the "Ask AI" widget's script (widget/, built into vendor/widget/), which any
 * site embeds with one <script> tag (docs/widget.md). It holds no secret and is the same for
 * everyone, so any origin may load and read it (CORP cross-origin, ACAO *: a page that loads it
 * with `crossorigin` or under COEP gets it too). Revalidated every time: the name carries no hash
 * and a server upgrade must reach every site at once. The file is handed in by the runtime
 * (`with { type: "file" }` embeds it in the binary); this module stays Web-standard. Without it,
 * the route is the app's JSON 404, saying how to build it.
 */
import { Elysia } from "elysia";
import { markStatus, requestIdOf } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";

/** Returns the widget's script as a body. */
export type WidgetScript = () => BodyInit | Promise<BodyInit>;

export const WIDGET_HEADERS = {
  "content-type": "text/javascript; charset=utf-8",
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "cross-origin",
  "access-control-allow-origin": "*",
};

export function widgetRoutes(script?: WidgetScript) {
  return new Elysia().get(
    "/widget.js",
    async ({ request }) => {
      if (script) return new Response(await script(), { headers: WIDGET_HEADERS });
      markStatus(request, 404);
      const missing = new ApiError("not_found", "The widget is not bundled in this build: run bun run build:widget.");
      return missing.respond(requestIdOf(request));
    },
    { detail: { hide: true } },
  );
}

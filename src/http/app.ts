/**
 * The standalone app: /healthz, the Parley plugin, and JSON errors for anything outside it.
 * Used by the server entry and by tests (app.handle), so both exercise the same composition.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { createParley, type ParleyConfig } from "../mod.ts";
import { errorResponse } from "./index.ts";
import { requestIdOf } from "./request-id.ts";
import { createLogger } from "../config/logger.ts";
import { buildOpenApi } from "./openapi.ts";
import { chatBody } from "../chat/model.ts";
import { DEFAULT_OPTIONS } from "../config/options.ts";

export function createApp(config: ParleyConfig) {
  const logger = config.logger ?? createLogger("info");
  let spec: unknown;
  const app = new Elysia()
    // Routes outside the plugin (health, docs) carry a request id too.
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
    })
    .onError(({ error, code, request }) => errorResponse(error, request, logger, String(code)))
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Liveness", tags: ["Health"] } })
    .get("/v1/openapi.json", () => spec, { detail: { hide: true } })
    // The reference page (Scalar, loaded from its CDN by the browser) reads our patched document.
    .use(openapi({ path: "/docs", specPath: "/docs/generated.json", scalar: { url: "/v1/openapi.json" } as never }))
    .use(createParley({ ...config, logger }));
  const maxChars = config.options?.maxMessageChars ?? DEFAULT_OPTIONS.maxMessageChars;
  spec = buildOpenApi(app, chatBody(maxChars));
  return app;
}

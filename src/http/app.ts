/**
 * The standalone app: /healthz, the Parley plugin, and JSON errors for anything outside it.
 * Used by the server entry and by tests (app.handle), so both exercise the same composition.
 */
import { Elysia } from "elysia";
import { createParley, type ParleyConfig } from "../mod.ts";
import { errorResponse } from "./index.ts";
import { requestIdOf } from "./request-id.ts";
import { createLogger } from "../config/logger.ts";
import { buildOpenApi } from "./openapi.ts";
import { type DocsScript, docsRoutes } from "./docs.ts";
import { DEFAULT_OPTIONS } from "../config/options.ts";

/** The runtime's extras: `docsScript` serves the reference UI's script (the runtime reads the file). */
export interface AppConfig extends ParleyConfig {
  docsScript?: DocsScript;
}

export function createApp({ docsScript, ...config }: AppConfig) {
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
    .use(docsRoutes(docsScript))
    .use(createParley({ ...config, logger }));
  const maxChars = config.options?.maxMessageChars ?? DEFAULT_OPTIONS.maxMessageChars;
  spec = buildOpenApi(app, { maxMessageChars: maxChars });
  return app;
}

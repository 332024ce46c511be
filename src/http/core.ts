/**
 * The HTTP core every feature plugin `.use(httpCore(...))`s: request ids and the one error
 * handler. The hooks are scoped, so they cover that plugin's routes and never leak into a host
 * app that mounts Parley.
 */
import { Elysia } from "elysia";
import type { Logger } from "../config/logger.ts";
import { errorResponse } from "./error-handler.ts";
import { requestIdOf } from "./request-id.ts";

/** Request ids and the error handler, for one feature plugin. */
export const httpCore = (logger: Logger) =>
  new Elysia()
    .onError({ as: "scoped" }, ({ error, code, request }) => errorResponse(error, request, logger, String(code)))
    .derive({ as: "scoped" }, ({ request, set }) => {
      const requestId = requestIdOf(request);
      set.headers["x-request-id"] = requestId;
      return { requestId };
    });

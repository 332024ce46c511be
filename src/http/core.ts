/**
 * The HTTP core every feature plugin `.use(httpCore(...))`s: request ids and the one error
 * handler. The hooks are scoped, so they cover that plugin's routes and never leak into a host
 * app that mounts Parley.
 */
import { Elysia } from "elysia";
import type { Logger } from "../config/logger.ts";
import type { ErrorBody } from "../contract/errors.ts";
import { errorResponse, shapeErrorsOf } from "./error-handler.ts";
import { requestIdOf, urlOf } from "./request-id.ts";

/** Request ids and the error handler, for one feature plugin. */
export const httpCore = (logger: Logger) =>
  new Elysia()
    .onError({ as: "scoped" }, ({ error, code, request }) => errorResponse(error, request, logger, String(code)))
    .derive({ as: "scoped" }, ({ request, set }) => {
      const requestId = requestIdOf(request);
      set.headers["x-request-id"] = requestId;
      return { requestId };
    });

/**
 * The errors of requests whose path matches `paths`, worded in another dialect (the
 * OpenAI-compatible door's). Set before anything else runs (onRequest is global: hence the path
 * test), so whichever plugin's error hook answers them — the host app's, or another feature's
 * scoped one, may come first — the body takes `shape`, with the same status, headers and logging.
 */
export const errorDialect = (paths: RegExp, shape: (body: ErrorBody) => unknown) =>
  new Elysia().onRequest(({ request }) => {
    if (paths.test(urlOf(request).pathname)) shapeErrorsOf(request, shape);
  });

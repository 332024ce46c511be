/**
 * /setup (no key): GET says whether the first admin key can still be made with a setup code; POST
 * exchanges one (auth/setup.ts). Wrong codes are limited per client address on each instance:
 * SETUP_TRIES per SETUP_WINDOW_MS, then 429 until the window ends, checked before the code is, so
 * guessing gets nowhere even before the code's 100 bits do (docs/api.md#first-run-setup).
 */
import { Elysia, type Static, t } from "elysia";
import type { Logger } from "../config/logger.ts";
import type { ParleyOptions } from "../config/options.ts";
import * as Wire from "../contract/keys.ts";
import type { Db } from "../db/client.ts";
import { jsonBody } from "../http/body.ts";
import { clientIp, requestIdsAndErrors, socketIp } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorBody } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { literals, type Same } from "../http/schema-contract.ts";
import { getKey } from "./keys-admin.ts";
import { CreatedApiKey, toApiKey } from "./model.ts";
import { exchangeSetupCode, setupState } from "./setup.ts";

/** Wrong codes one client address may send per window, on each instance. */
export const SETUP_TRIES = 5;
export const SETUP_WINDOW_MS = 15 * 60_000;
/** Addresses remembered at most; the oldest window is forgotten first. */
const MAX_CLIENTS = 10_000;

export const SetupStatus = t.Object({
  state: literals(Wire.SETUP_STATES, {
    description:
      "`open`: a setup code awaits; `no_code`: no admin key yet, but no live code (restart the server for one); `done`: an admin key exists.",
  }),
});
export const SetupRequest = t.Object({
  code: t.String({
    minLength: 1,
    maxLength: 100,
    examples: ["7K2QX-M9D4R-T0VWP-3HNBE"],
    description: "The setup code the server printed in its log at start.",
    error: "Invalid field 'code': the setup code from the server's log.",
  }),
  name: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      examples: ["docs team"],
      description: "The new admin key's name; default `admin`.",
      error: "Invalid field 'name': 1–200 characters.",
    }),
  ),
});
true satisfies Same<Static<typeof SetupStatus>, Wire.SetupStatus>;
true satisfies Same<Static<typeof SetupRequest>, Wire.SetupRequest>;

const EXCHANGE_ERRORS = {
  400: ErrorBody,
  403: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
};
const EXCHANGE_STATUSES = {
  "403": "The code is wrong, used or expired (`invalid_setup_code`).",
  "409": "Setup is over: an admin key exists (`setup_closed`); every setup code is void.",
  "429": "Too many wrong codes from this address (`rate_limit_exceeded`); see `Retry-After`.",
};

/** Wrong codes per client address: a fixed window each, in this instance's memory. */
function wrongCodeLimiter(now: () => number) {
  const windows = new Map<string, { until: number; wrong: number }>();
  const current = (client: string) => {
    const w = windows.get(client);
    return w && w.until > now() ? w : undefined;
  };
  return {
    check(client: string) {
      const w = current(client);
      if (!w || w.wrong < SETUP_TRIES) return;
      const seconds = Math.ceil((w.until - now()) / 1000);
      throw new ApiError(
        "rate_limit_exceeded",
        `Too many wrong setup codes from this address; retry after ${seconds} s.`,
        { headers: { "retry-after": String(seconds) } },
      );
    },
    wrong(client: string) {
      const w = current(client) ?? { until: now() + SETUP_WINDOW_MS, wrong: 0 };
      w.wrong++;
      windows.delete(client);
      windows.set(client, w);
      if (windows.size > MAX_CLIENTS) windows.delete(windows.keys().next().value!);
    },
  };
}

export const setupRoutes = (deps: { db: Db; logger: Logger; options: ParleyOptions; now: () => number }) => {
  const limiter = wrongCodeLimiter(deps.now);
  return new Elysia({ prefix: "/setup", tags: ["Keys"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(jsonBody(deps.options.maxBodyBytes))
    .get("", async () => ({ state: await setupState(deps.db, new Date(deps.now())) }), {
      response: { 200: SetupStatus, 500: ErrorBody, 503: ErrorBody },
      detail: routeDoc(
        "First-run setup state",
        "No key needed. Whether the first admin key can still be made with the setup code the server printed at start.",
        { operationId: "getSetupState", success: "SetupStatus", public: true },
      ),
    })
    .post(
      "",
      async ({ body, request, set }) => {
        const client = clientIp(request, socketIp(request), deps.options.trustProxy) ?? "unknown";
        limiter.check(client);
        try {
          const { id, secret } = await exchangeSetupCode(deps.db, body, new Date(deps.now()));
          deps.logger.warn({ key_id: id }, "setup: the first admin key was created with the setup code");
          set.status = 201;
          return { ...toApiKey((await getKey(deps.db, id))!), secret };
        } catch (error) {
          if (error instanceof ApiError && error.code === "invalid_setup_code") limiter.wrong(client);
          throw error;
        }
      },
      {
        body: SetupRequest,
        response: { 201: CreatedApiKey, ...EXCHANGE_ERRORS },
        detail: routeDoc(
          "Exchange the setup code for the first admin key",
          "No key needed; once per store. A live setup code (printed in the server's log at start while no admin key exists) becomes the first admin key, whose secret is answered this once. A wrong, used or expired code is 403 `invalid_setup_code`; once an admin key exists, 409 `setup_closed` and every code is void. Wrong codes are limited per client address (429).",
          {
            operationId: "exchangeSetupCode",
            success: "CreatedApiKey",
            body: "SetupRequest",
            public: true,
            statuses: EXCHANGE_STATUSES,
          },
        ),
      },
    );
};

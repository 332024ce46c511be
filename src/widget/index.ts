/**
 * /widget: what a page holding a public key (`pk_…`) calls before anything else. POST
 * /widget/sessions opens (or, with the previous visitor token, renews) a visitor session: a
 * short-lived token bound to the key, the page's origin and the visitor; POST /widget/challenges
 * hands out the proof of work a key may ask for first. The gate has already checked the key, the
 * Origin and the client IP's limits (auth/visitors.ts); the visitors' own routes are the chat,
 * replies, feedback and conversations features, which take visitor tokens.
 */
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { type AdmissionDeps, admission, signVisitorToken } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { apiKeys } from "../db/schema.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { newId } from "../primitives.ts";
import { WidgetChallenge, WidgetSession, WidgetSessionRequest } from "./model.ts";
import { issueChallenge, spendProof } from "./proof.ts";
import { verifyUserToken } from "./user-token.ts";

export { WidgetChallenge, WidgetSession, WidgetSessionRequest } from "./model.ts";
export { forgetSpentProofs } from "./proof.ts";

const powRequired = (message: string) => new ApiError("proof_of_work_required", message, { param: "proof" });

export const widgetRoutes = (deps: AdmissionDeps & { logger: Logger }) =>
  new Elysia({ prefix: "/widget", tags: ["Widget"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps, { publicKey: true }))
    .post(
      "/challenges",
      async ({ apiKey, set }) => {
        set.status = 201;
        return issueChallenge(deps.db, apiKey.id, deps.now(), deps.options.proofOfWorkMaxNumber);
      },
      {
        // No body to read (a widget may send `{}`): like the other body-less POSTs.
        parse: "none",
        response: { 201: WidgetChallenge, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "Get a proof-of-work challenge",
          "An ALTCHA challenge (SHA-256) for a public key's session: find `number` such that SHA-256(salt + number) is `challenge`, then send the solution as the session's `proof`. Valid 10 minutes, once.",
          { operationId: "createWidgetChallenge", success: "WidgetChallenge" },
        ),
      },
    )
    // JSON bodies only for the routes after this point.
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "/sessions",
      async ({ apiKey, body, request, set }) => {
        const now = deps.now();
        let expiresAt = now + deps.options.visitorTokenTtlMs;
        const [key] = await deps.db
          .select({ secret: apiKeys.userTokenSecret })
          .from(apiKeys)
          .where(eq(apiKeys.id, apiKey.id));
        let visitorId: string;
        if (key?.secret) {
          if (!body.user_token)
            throw new ApiError("unauthorized", "This key's sessions need a user_token signed by the site's server.", {
              param: "user_token",
            });
          const user = await verifyUserToken(key.secret, body.user_token, now);
          visitorId = user.subject;
          expiresAt = Math.min(expiresAt, user.expiresAt);
        } else if (apiKey.visitor) {
          visitorId = apiKey.visitor.id; // a renewal: the same visitor, proven already
        } else {
          if (apiKey.widget?.require_proof_of_work) {
            if (!body.proof)
              throw powRequired(
                "This key asks for proof of work: solve a challenge (POST /v1/widget/challenges) and send it as 'proof'.",
              );
            const why = await spendProof(deps.db, apiKey.id, body.proof, now);
            if (why) throw powRequired(why);
          }
          visitorId = newId("vis");
        }
        // The gate checked the Origin against the key (and a renewed token's own).
        const origin = request.headers.get("origin")!;
        const token = await signVisitorToken(deps.db, { keyId: apiKey.id, visitorId, origin, expiresAt });
        set.status = 201;
        return { token, visitor_id: visitorId, expires_at: new Date(expiresAt).toISOString() };
      },
      {
        body: WidgetSessionRequest,
        response: { 201: WidgetSession, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "Open a visitor session",
          "With `Authorization: Bearer pk_…` from a page on one of the key's allowed origins: a visitor token for that origin (`201`). With a previous visitor token instead (up to 7 days after it expired): a new one for the same visitor. A key that requires proof of work wants `proof` (403 `proof_of_work_required` without it); a key with a user-token secret wants `user_token`.",
          { operationId: "createWidgetSession", success: "WidgetSession", body: "WidgetSessionRequest" },
        ),
      },
    );

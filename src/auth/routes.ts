/** /keys (admin): create, page, read, change and revoke API keys over HTTP — the CLI's `keys …` services. */
import { Elysia } from "elysia";
import type { Logger } from "../config/logger.ts";
import type { KeyRole } from "../contract/keys.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { decodeCursor } from "../http/cursor.ts";
import { notFound } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { PageQuery, plainLimit } from "../http/paging.ts";
import { routeDoc } from "../http/route-doc.ts";
import { isId } from "../primitives.ts";
import { type AdmissionDeps, adminAdmission } from "./index.ts";
import { wireExpiry } from "./key-input.ts";
import { createKey, getKey, pageKeys, revokeKey, updateKey } from "./keys-admin.ts";
import { ApiKey, ApiKeyList, CreatedApiKey, CreateKey, KeyParams, toApiKey, UpdateKey } from "./model.ts";
import { WIDGET_FIELDS, type WidgetFields } from "./public-key-input.ts";

const keyNotFound = (id: string) => notFound("API key", id, "id");

/** A create or patch body (snake case, wire dates) as the keys service takes it: one mapping for both routes. */
const keyFields = <B extends KeyBody>(body: B) => ({
  name: body.name as B["name"],
  plan: body.plan as B["plan"],
  rpm: body.rpm,
  rpd: body.rpd,
  tpd: body.tpd,
  role: body.role as B["role"],
  knowledgeBaseIds: body.knowledge_base_ids,
  expiresAt: wireExpiry(body.expires_at),
  widget: Object.fromEntries(WIDGET_FIELDS.map((f) => [f, body[f]])) as WidgetFields,
});
interface KeyBody extends WidgetFields {
  name?: string;
  plan?: string;
  rpm?: number | null;
  rpd?: number | null;
  tpd?: number | null;
  role?: KeyRole;
  knowledge_base_ids?: string[];
  expires_at?: string | null;
}
const KEY_ERRORS = { 403: ErrorBody, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses };

export const keyRoutes = (deps: AdmissionDeps & { logger: Logger }) => {
  const at = () => new Date(deps.now());
  const read = async (id: string) => {
    const key = isId("key", id) ? await getKey(deps.db, id) : null;
    if (!key) throw keyNotFound(id);
    return toApiKey(key);
  };
  // POST …/revoke takes no body: it lives in an instance without the JSON body reader, used
  // before the one with it (a parent's hooks reach the plugins it uses after them).
  const revoking = new Elysia({ tags: ["Keys"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .post(
      "/:id/revoke",
      async ({ params }) => {
        if (!isId("key", params.id)) throw keyNotFound(params.id);
        await revokeKey(deps.db, params.id, at());
        return read(params.id);
      },
      {
        parse: "none",
        params: KeyParams,
        response: { 200: ApiKey, 403: ErrorBody, 409: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "Revoke an API key",
          "Refused from its next request on, on every instance. Revoking a revoked key answers it as it is. Revoking the last active admin key is 409 `last_admin`.",
          { operationId: "revokeKey", success: "ApiKey" },
        ),
      },
    );
  const withBody = new Elysia({ tags: ["Keys"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "",
      async ({ body, set }) => {
        const { id, secret } = await createKey(deps.db, keyFields(body), at());
        set.status = 201;
        return { ...(await read(id)), secret };
      },
      {
        body: CreateKey,
        response: { 201: CreatedApiKey, ...KEY_ERRORS },
        detail: routeDoc("Create an API key", "Answers the secret once; it is never shown again.", {
          operationId: "createKey",
          success: "CreatedApiKey",
          body: "KeyCreate",
        }),
      },
    )
    .get(
      "",
      async ({ query }) => {
        const cursor = query.cursor === undefined ? null : await decodeCursor(deps.db, query.cursor, { prefix: "key" });
        const page = await pageKeys(deps.db, query.limit ?? 20, cursor);
        return { data: page.rows.map(toApiKey), pagination: { has_more: page.hasMore, next_cursor: page.nextCursor } };
      },
      {
        transform: plainLimit,
        query: PageQuery,
        response: { 200: ApiKeyList, 403: ErrorBody, ...ErrorResponses },
        detail: routeDoc("List API keys", "Newest first, revoked ones included; never the secrets.", {
          operationId: "listKeys",
          success: "ApiKeyList",
        }),
      },
    )
    .get("/:id", ({ params }) => read(params.id), {
      params: KeyParams,
      response: { 200: ApiKey, 403: ErrorBody, ...ErrorResponses },
      detail: routeDoc("Get an API key", "", { operationId: "getKey", success: "ApiKey" }),
    })
    .patch(
      "/:id",
      async ({ params, body }) => {
        const ok = isId("key", params.id) && (await updateKey(deps.db, params.id, keyFields(body), at()));
        if (!ok) throw keyNotFound(params.id);
        return read(params.id);
      },
      {
        params: KeyParams,
        body: UpdateKey,
        response: { 200: ApiKey, ...KEY_ERRORS, 409: ErrorBody },
        detail: routeDoc(
          "Change an API key",
          "Name, plan, limits, role, knowledge bases (replaced as a whole) and expiry. A new plan starts from its defaults unless limits are given. Demoting the last active admin key is 409 `last_admin`.",
          { operationId: "updateKey", success: "ApiKey", body: "KeyUpdate" },
        ),
      },
    );
  return new Elysia({ prefix: "/keys" }).use(revoking).use(withBody);
};

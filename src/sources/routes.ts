/**
 * /knowledge_bases/:id/sources (admin keys): add a web source (its first sync starts at once),
 * list and read sources with their last sync, start a sync (202; the running one if one runs,
 * on any instance), delete a source with its documents. The operations are manage.ts's, which the
 * CLI uses too.
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, adminAdmission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { notFound } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { resolveKnowledgeBase } from "../knowledge/index.ts";
import type { Tracing } from "../tracing/index.ts";
import { addSource, deleteSource, getSource, listSources, type ManageDeps, syncSource } from "./manage.ts";
import { CreateSource, Source, SourceList, SourceParams, SourceSync, SourcesParams } from "./model.ts";
import type { SourceSyncs } from "./runner.ts";

export type SourceDeps = AdmissionDeps & { logger: Logger; syncs: SourceSyncs; tracing?: Tracing };

const ADMIN = { 403: ErrorBody, 404: ErrorBody };
const sourceNotFound = (id: string) => notFound("source", id, "source_id");

export const sourceRoutes = (deps: SourceDeps) => {
  const manage: ManageDeps = { db: deps.db, now: deps.now, sources: deps.options.sources, syncs: deps.syncs };
  return new Elysia({ prefix: "/knowledge_bases/:id/sources", tags: ["Web sources"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .get(
      "",
      async ({ params, apiKey }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        return { data: await listSources(deps.db, kb.id) };
      },
      {
        parse: "none",
        params: SourcesParams,
        response: { 200: SourceList, ...ADMIN, ...ErrorResponses },
        detail: routeDoc("List a knowledge base's web sources", "Newest first, each with its last sync.", {
          operationId: "listSources",
          success: "SourceList",
        }),
      },
    )
    .get(
      "/:source_id",
      async ({ params, apiKey }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        const source = await getSource(deps.db, kb.id, params.source_id);
        if (!source) throw sourceNotFound(params.source_id);
        return source;
      },
      {
        parse: "none",
        params: SourceParams,
        response: { 200: Source, ...ADMIN, ...ErrorResponses },
        detail: routeDoc("Get a web source", "With its last sync: status, page counts while it runs, errors.", {
          operationId: "getSource",
          success: "Source",
        }),
      },
    )
    .delete(
      "/:source_id",
      async ({ params, apiKey }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        // The local sync stops first, so it writes nothing after the delete.
        if (!(await deleteSource(manage, kb.id, params.source_id))) throw sourceNotFound(params.source_id);
        return new Response(null, { status: 204 }) as never;
      },
      {
        parse: "none",
        params: SourceParams,
        response: { ...ADMIN, ...ErrorResponses },
        detail: routeDoc(
          "Delete a web source",
          "Its documents, syncs and pages go with it (a running sync stops); documents uploaded by hand stay.",
          { operationId: "deleteSource" },
        ),
      },
    )
    .post(
      "/:source_id/sync",
      async ({ params, apiKey, set, request }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        const sync = await syncSource(manage, kb.id, params.source_id, deps.tracing?.of(request));
        if (!sync) throw sourceNotFound(params.source_id);
        set.status = 202;
        return sync;
      },
      {
        parse: "none",
        params: SourceParams,
        response: { 202: SourceSync, ...ADMIN, ...ErrorResponses },
        detail: routeDoc(
          "Sync a web source now",
          "202 with the sync; when one is already running (on any instance), that one: never two at once.",
          { operationId: "syncSource", success: "SourceSync" },
        ),
      },
    )
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "",
      async ({ params, body, apiKey, set, request }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        set.status = 201;
        return addSource(manage, kb.id, body, deps.tracing?.of(request));
      },
      {
        params: SourcesParams,
        body: CreateSource,
        response: { 201: Source, ...ADMIN, 409: ErrorBody, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "Add a web source",
          "Crawls the site into the knowledge base; its first sync starts at once. A URL the knowledge base already crawls is 409 `already_exists`; a private or loopback address is 400 unless the server allows private networks.",
          { operationId: "createSource", success: "Source", body: "SourceCreate" },
        ),
      },
    );
};

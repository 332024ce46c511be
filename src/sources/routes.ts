/**
 * /knowledge_bases/:id/sources (admin keys): add a web source (its first sync starts at once),
 * list and read sources with their last sync, start a sync (202; the running one if one runs,
 * on any instance), delete a source with its documents.
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, adminAdmission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { countSourceDocuments, resolveKnowledgeBase } from "../knowledge/index.ts";
import { isId } from "../primitives.ts";
import type { Tracing } from "../tracing/index.ts";
import { checkSourceInput } from "./input.ts";
import { CreateSource, Source, SourceList, SourceParams, SourceSync, SourcesParams } from "./model.ts";
import type { SourceSyncs } from "./runner.ts";
import { findSource, insertSource, lastSyncs, removeSource, type SourceRow, sourcesOf } from "./store.ts";
import { sourceWire, syncWire } from "./wire.ts";

export type SourceDeps = AdmissionDeps & { logger: Logger; syncs: SourceSyncs; tracing?: Tracing };

const ADMIN = { 403: ErrorBody, 404: ErrorBody };
const sourceNotFound = (id: string) => notFound("source", id, "source_id");

export const sourceRoutes = (deps: SourceDeps) => {
  const wire = async (rows: SourceRow[]) => {
    const syncs = await lastSyncs(
      deps.db,
      rows.map((r) => r.id),
    );
    return Promise.all(
      rows.map(async (r) => sourceWire(r, syncs.get(r.id), await countSourceDocuments(deps.db, r.id))),
    );
  };
  const existing = async (kbId: string, id: string) => {
    const row = isId("src", id) ? await findSource(deps.db, kbId, id) : undefined;
    if (!row) throw sourceNotFound(id);
    return row;
  };
  return new Elysia({ prefix: "/knowledge_bases/:id/sources", tags: ["Web sources"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .get(
      "",
      async ({ params, apiKey }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        return { data: await wire(await sourcesOf(deps.db, kb.id)) };
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
        return (await wire([await existing(kb.id, params.source_id)]))[0]!;
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
        const row = await existing(kb.id, params.source_id);
        // The local sync stops first, so it writes nothing after the delete.
        await deps.syncs.stop(row.id);
        if (!(await removeSource(deps.db, kb.id, row.id))) throw sourceNotFound(params.source_id);
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
        const row = await existing(kb.id, params.source_id);
        const sync = await deps.syncs.start(row, "manual", deps.tracing?.of(request));
        if (!sync) throw sourceNotFound(params.source_id);
        set.status = 202;
        return syncWire(sync);
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
        const input = await checkSourceInput(body, deps.options.sources);
        const row = await insertSource(deps.db, { ...input, kbId: kb.id }, new Date(deps.now()));
        if (!row)
          throw new ApiError("already_exists", "This knowledge base already has a source with this URL.", {
            param: "url",
          });
        const sync = await deps.syncs.start(row, "created", deps.tracing?.of(request));
        set.status = 201;
        return sourceWire(row, sync, 0);
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

/**
 * /knowledge_bases: CRUD of knowledge bases and reading/deleting their documents (admin keys),
 * and search (any key that may use the knowledge base). Uploads are in upload.ts.
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, adminAdmission, admission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { decodeCursor } from "../http/cursor.ts";
import { notFound } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { PageQuery, plainLimit } from "../http/paging.ts";
import { routeDoc } from "../http/route-doc.ts";
import { isId } from "../primitives.ts";
import {
  createKnowledgeBase,
  deleteKnowledgeBase,
  getKnowledgeBase,
  pageKnowledgeBases,
  updateKnowledgeBase,
} from "./bases.ts";
import { deleteDocument, getDocument, pageDocuments } from "./documents.ts";
import { explainedSearch } from "./find.ts";
import {
  CreateKnowledgeBase,
  DocParams,
  Document,
  DocumentList,
  DocumentQuery,
  KbParams,
  KnowledgeBase,
  KnowledgeBaseList,
  SearchBody,
  SearchResults,
  UpdateKnowledgeBase,
} from "./model.ts";
import { resolveKnowledgeBase } from "./retrieve.ts";

export type KnowledgeDeps = AdmissionDeps & {
  logger: Logger;
  /**
   * The latest question of a conversation the key may read, or null (conversations/, passed in
   * by the composition: knowledge/ sits below the features that reply).
   */
  lastQuestionOf?: (key: { id: string; role: string }, conversationId: string) => Promise<string | null>;
};

const kbNotFound = (id: string) => notFound("knowledge base", id, "id");
const docNotFound = (id: string) => notFound("document", id, "doc_id");
const noContent = () => new Response(null, { status: 204 }) as never;
const ADMIN = { 403: ErrorBody };

/** Admin routes over knowledge bases and their documents. */
export const knowledgeBaseRoutes = (deps: KnowledgeDeps) => {
  const at = () => new Date(deps.now());
  const existing = async (id: string) => {
    const kb = await getKnowledgeBase(deps.db, id);
    if (!kb) throw kbNotFound(id);
    return kb;
  };
  return new Elysia({ prefix: "/knowledge_bases", tags: ["Knowledge bases"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "",
      async ({ body, set }) => {
        set.status = 201;
        return createKnowledgeBase(deps.db, body, at());
      },
      {
        body: CreateKnowledgeBase,
        response: { 201: KnowledgeBase, ...ADMIN, 409: ErrorBody, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses },
        detail: routeDoc("Create a knowledge base", "Names are unique: a duplicate is 409 `already_exists`.", {
          operationId: "createKnowledgeBase",
          success: "KnowledgeBase",
          body: "KnowledgeBaseCreate",
        }),
      },
    )
    .get(
      "",
      async ({ query }) => {
        const cursor = query.cursor === undefined ? null : await decodeCursor(deps.db, query.cursor, { prefix: "kb" });
        return pageKnowledgeBases(deps.db, query.limit ?? 20, cursor);
      },
      {
        transform: plainLimit,
        query: PageQuery,
        response: { 200: KnowledgeBaseList, ...ADMIN, ...ErrorResponses },
        detail: routeDoc("List knowledge bases", "Newest first, by keyset cursor, with their counts.", {
          operationId: "listKnowledgeBases",
          success: "KnowledgeBaseList",
        }),
      },
    )
    .get("/:id", ({ params }) => existing(params.id), {
      params: KbParams,
      response: { 200: KnowledgeBase, ...ADMIN, ...ErrorResponses },
      detail: routeDoc("Get a knowledge base", "With its document and passage counts, bytes and `updated_at`.", {
        operationId: "getKnowledgeBase",
        success: "KnowledgeBase",
      }),
    })
    .patch(
      "/:id",
      async ({ params, body }) => {
        const kb = await updateKnowledgeBase(deps.db, params.id, body, at());
        if (!kb) throw kbNotFound(params.id);
        return kb;
      },
      {
        params: KbParams,
        body: UpdateKnowledgeBase,
        response: { 200: KnowledgeBase, ...ADMIN, 409: ErrorBody, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "Rename, describe or set the language of a knowledge base",
          "A new `language` re-indexes, before the answer, the documents without a language of their own.",
          {
            operationId: "updateKnowledgeBase",
            success: "KnowledgeBase",
            body: "KnowledgeBaseUpdate",
          },
        ),
      },
    )
    .delete(
      "/:id",
      async ({ params }) => {
        if (!(await deleteKnowledgeBase(deps.db, params.id))) throw kbNotFound(params.id);
        return noContent();
      },
      {
        parse: "none",
        params: KbParams,
        response: { ...ADMIN, ...ErrorResponses },
        detail: routeDoc("Delete a knowledge base", "With its documents and passages. 204.", {
          operationId: "deleteKnowledgeBase",
        }),
      },
    )
    .get(
      "/:id/documents",
      async ({ params, query }) => {
        await existing(params.id);
        const cursor =
          query.cursor === undefined
            ? null
            : await decodeCursor(deps.db, query.cursor, { prefix: "doc", scope: params.id });
        return pageDocuments(deps.db, params.id, { limit: query.limit ?? 20, cursor, urlPrefix: query.url_prefix });
      },
      {
        transform: plainLimit,
        params: KbParams,
        query: DocumentQuery,
        response: { 200: DocumentList, ...ADMIN, ...ErrorResponses },
        detail: routeDoc("List documents", "Newest first, by keyset cursor; `url_prefix` filters by URL.", {
          operationId: "listDocuments",
          success: "DocumentList",
        }),
      },
    )
    .get(
      "/:id/documents/:doc_id",
      async ({ params }) => {
        await existing(params.id);
        const doc = await getDocument(deps.db, params.id, params.doc_id);
        if (!doc) throw docNotFound(params.doc_id);
        return doc;
      },
      {
        params: DocParams,
        response: { 200: Document, ...ADMIN, ...ErrorResponses },
        detail: routeDoc("Get a document", "Its metadata and stored content.", {
          operationId: "getDocument",
          success: "Document",
        }),
      },
    )
    .delete(
      "/:id/documents/:doc_id",
      async ({ params }) => {
        await existing(params.id);
        if (!(await deleteDocument(deps.db, params.id, params.doc_id, at()))) throw docNotFound(params.doc_id);
        return noContent();
      },
      {
        parse: "none",
        params: DocParams,
        response: { ...ADMIN, ...ErrorResponses },
        detail: routeDoc(
          "Delete a document",
          "With its passages, at once: no search or reply cites it after the 204.",
          { operationId: "deleteDocument" },
        ),
      },
    );
};

/** POST /knowledge_bases/:id/search: any key that may use the knowledge base (else 404). */
export const searchRoutes = (deps: KnowledgeDeps) =>
  new Elysia({ prefix: "/knowledge_bases", tags: ["Knowledge bases"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps))
    .use(jsonBody(deps.options.maxBodyBytes))
    .post(
      "/:id/search",
      async ({ params, body, apiKey }) => {
        const kb = await resolveKnowledgeBase(deps.db, apiKey, params.id, "id");
        const id = body.conversation_id;
        const context =
          id === undefined ? "" : isId("conv", id) ? ((await deps.lastQuestionOf?.(apiKey, id)) ?? null) : null;
        if (context === null) throw notFound("conversation", id!, "conversation_id");
        return explainedSearch(deps.db, kb.id, body.query, body.limit ?? 8, context);
      },
      {
        params: KbParams,
        body: SearchBody,
        response: { 200: SearchResults, 413: ErrorBody, 415: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "Search a knowledge base",
          "Ranked passages, best page first: the agent's own search (BM25F), no model involved. Empty when the question is not about this knowledge base. `query.terms` is the effective query: each term searched, from the query or (with `conversation_id`) from the conversation's latest question, with its weight.",
          { operationId: "searchKnowledgeBase", success: "SearchResults", body: "SearchRequest" },
        ),
      },
    );

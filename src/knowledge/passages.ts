/**
 * GET /knowledge_bases/:id/documents/:doc_id/passages (admin keys): a document's passages in
 * document order, each as search ranks it and replies cite it, so a docs team can see how a
 * page was cut. Read-only. Not paged: a document is at most MAX_DOCUMENT_BYTES, and its passages
 * are its text, cut.
 */
import { and, asc, eq } from "drizzle-orm";
import { Elysia, type Static, t } from "elysia";
import { adminAdmission } from "../auth/index.ts";
import type * as Wire from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { chunks, documents } from "../db/schema.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { notFound } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import type { Same } from "../http/schema-contract.ts";
import { isId } from "../primitives.ts";
import { getKnowledgeBase } from "./bases.ts";
import { DocParams } from "./model.ts";
import type { KnowledgeDeps } from "./routes.ts";

export const Passage = t.Object({
  id: t.String({ description: "chunk_… identifier" }),
  position: t.Integer({ minimum: 0, description: "Its place in the document, from 0." }),
  heading: t.String({ description: 'The heading it sits under ("" when none).' }),
  content: t.String(),
});
export const PassageList = t.Object({ document_id: t.String(), data: t.Array(Passage) });
true satisfies Same<Static<typeof Passage>, Wire.Passage>;
true satisfies Same<Static<typeof PassageList>, Wire.PassageList>;

/** The passages of document `docId` of knowledge base `kbId`, in order; null when it has no such document. */
export async function documentPassages(db: Db, kbId: string, docId: string): Promise<Wire.PassageList | null> {
  if (!isId("doc", docId)) return null;
  const [doc] = await db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.kbId, kbId), eq(documents.id, docId)));
  if (!doc) return null;
  const rows = await db
    .select({ id: chunks.id, position: chunks.ord, heading: chunks.heading, content: chunks.content })
    .from(chunks)
    .where(eq(chunks.documentId, docId))
    .orderBy(asc(chunks.ord));
  return { document_id: docId, data: rows };
}

export const passageRoutes = (deps: KnowledgeDeps) =>
  new Elysia({ prefix: "/knowledge_bases", tags: ["Knowledge bases"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .get(
      "/:id/documents/:doc_id/passages",
      async ({ params }) => {
        if (!(await getKnowledgeBase(deps.db, params.id))) throw notFound("knowledge base", params.id, "id");
        const list = await documentPassages(deps.db, params.id, params.doc_id);
        if (!list) throw notFound("document", params.doc_id, "doc_id");
        return list;
      },
      {
        params: DocParams,
        response: { 200: PassageList, 403: ErrorBody, ...ErrorResponses },
        detail: routeDoc(
          "List a document's passages",
          "Every passage of the document in document order: what search ranks and replies cite, as ingest cut it. Not paged.",
          { operationId: "listPassages", success: "PassageList" },
        ),
      },
    );

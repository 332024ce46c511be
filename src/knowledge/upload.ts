/**
 * POST /knowledge_bases/:id/documents (admin): one document as JSON (201 created, 200 replaced),
 * or many — an ndjson stream or multipart files — answered with a result per line or file.
 * The body is read here, by content type, after the admission (so 401/403/429 come first).
 */
import { Elysia, t } from "elysia";
import { adminAdmission } from "../auth/index.ts";
import { BodyBrokeOff, BodyStalled, holdOpen, readLimited, type TimeoutServer } from "../http/body.ts";
import { requestIdOf, requestIdsAndErrors, urlOf } from "../http/core.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { getKnowledgeBase } from "./bases.ts";
import { docsBase, isUrlStyle, URL_STYLES, type UrlStyle } from "./docs-url.ts";
import { putDocument } from "./documents.ts";
import type { IngestCounter } from "./ingest.ts";
import { BulkResult, Document, DocumentInput, KbParams } from "./model.ts";
import { ingestNdjson } from "./ndjson.ts";
import { checkDocument } from "./parse.ts";
import type { KnowledgeDeps } from "./routes.ts";
import { ingestFiles, UPLOAD_EXTENSIONS } from "./upload-files.ts";

const NDJSON = /^application\/(x-ndjson|ndjson|jsonl|x-jsonlines|jsonlines)\s*(;|$)/i;

/**
 * A multipart upload's `base_url` and `url_style` (docs-url.ts), checked once for the request: a
 * bad one is the request's fault (400), not each file's.
 */
function fileSource(form: FormData): { baseUrl?: string; urlStyle?: UrlStyle } {
  const base = form.get("base_url");
  const style = form.get("url_style");
  const baseUrl = typeof base === "string" && base.trim() ? base.trim() : undefined;
  const checked = baseUrl === undefined ? undefined : docsBase(baseUrl);
  if (checked && "reason" in checked)
    throw new ApiError("invalid_request", `Invalid field 'base_url': ${checked.reason}.`, { param: "base_url" });
  if (style === null || style === "") return { baseUrl };
  if (!isUrlStyle(style))
    throw new ApiError("invalid_request", `Invalid field 'url_style': must be one of ${URL_STYLES.join(", ")}.`, {
      param: "url_style",
    });
  return { baseUrl, urlStyle: style };
}

export const uploadRoutes = (deps: KnowledgeDeps) => {
  const rules = { maxBytes: deps.options.maxDocumentBytes };
  const idleMs = deps.options.uploadIdleMs;
  const { metrics } = deps;
  const count: IngestCounter | undefined = metrics
    ? (documents, passages) => {
        metrics.ingestDocuments.inc(documents);
        metrics.ingestPassages.inc(passages);
      }
    : undefined;
  const tooLarge = (what: string, bytes: number, param?: string) =>
    new ApiError("payload_too_large", `${what} is over ${bytes} bytes.`, param ? { param } : {});

  async function one(request: Request, kbId: string, set: { status?: number | string }) {
    // JSON escapes can make the content up to 6× longer than its UTF-8 bytes.
    const bytes = await readLimited(request, rules.maxBytes * 6 + 64 * 1024, idleMs);
    if (bytes === null) throw tooLarge("The document (MAX_DOCUMENT_BYTES)", rules.maxBytes, "content");
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (e) {
      throw new ApiError("invalid_json", `The request body is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new ApiError("invalid_request", "The body must be a JSON object {url, content, …}.");
    const r = checkDocument(value, rules);
    if ("problem" in r) {
      const { reason, param, tooLarge: big } = r.problem;
      throw new ApiError(big ? "payload_too_large" : "invalid_request", `Invalid field '${param}': ${reason}.`, {
        param,
      });
    }
    const { document, created } = await putDocument(deps.db, kbId, r.doc, new Date(deps.now()), count);
    set.status = created ? 201 : 200;
    return document;
  }

  /** The upload by its content type: one JSON document, an ndjson stream, or multipart files. */
  async function upload(request: Request, type: string, kbId: string, now: Date, set: { status?: number | string }) {
    if (/^application\/json\s*(;|$)/i.test(type)) return one(request, kbId, set);
    if (NDJSON.test(type)) {
      if (!request.body) throw new ApiError("invalid_request", "An ndjson body is required.");
      return ingestNdjson(deps.db, kbId, request.body, { ...rules, idleMs }, { now, count });
    }
    if (/^multipart\/form-data/i.test(type)) {
      const bytes = await readLimited(request, deps.options.maxUploadBytes, idleMs);
      if (bytes === null) throw tooLarge("The upload (MAX_UPLOAD_BYTES)", deps.options.maxUploadBytes);
      let form: FormData;
      try {
        form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData();
      } catch {
        throw new ApiError("invalid_request", "The multipart body could not be read.");
      }
      return ingestFiles(deps.db, kbId, form, rules, { now, count }, fileSource(form));
    }
    throw new ApiError(
      "unsupported_media_type",
      `Send one document as application/json, many as application/x-ndjson, or files (${UPLOAD_EXTENSIONS.join(", ")}) as multipart/form-data.`,
    );
  }

  return new Elysia({ prefix: "/knowledge_bases", tags: ["Knowledge bases"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .post(
      "/:id/documents",
      async ({ params, request, set, server }) => {
        const kb = await getKnowledgeBase(deps.db, params.id);
        if (!kb) throw notFound("knowledge base", params.id, "id");
        const type = (request.headers.get("content-type") ?? "").trim();
        const now = new Date(deps.now());
        // The body may take long to arrive: the upload's own limit is the wait between chunks.
        const release = holdOpen(server as TimeoutServer, request);
        try {
          // The 200/201 union is documented below; the handler's own type is narrower than Elysia infers.
          return (await upload(request, type, kb.id, now, set)) as never;
        } catch (error) {
          if (error instanceof BodyBrokeOff || error instanceof BodyStalled) {
            // The client's doing, not a fault here: nobody may be left to read the answer.
            deps.logger.warn(
              { request_id: requestIdOf(request), path: urlOf(request).pathname, reason: error.message },
              "upload ended early",
            );
          }
          throw error;
        } finally {
          release();
        }
      },
      {
        parse: "none",
        params: KbParams,
        response: {
          200: t.Union([Document, BulkResult]),
          201: Document,
          403: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          ...ErrorResponses,
        },
        detail: {
          ...routeDoc("Add or replace documents", "", {
            operationId: "addDocuments",
            success: "Document",
            okOneOf: ["Document", "BulkResult"],
          }),
          description:
            "`application/json`: one document; 201 when new, 200 when it replaced the one with the same URL. `application/x-ndjson`: one document per line, streamed; `multipart/form-data`: files (.md, .markdown, .txt with YAML `---` or TOML `+++` front matter, .html, .htm, .jsonl; .pdf: one document, headed by its outline or `## Page N`; .json, .yaml, .yml holding an OpenAPI 3.x or Swagger 2.0 spec: one document per operation at `#operation/<operationId>` or `#<method>-<path-slug>`, and an overview) and optional `base_url` and `url_style` fields for files without a `url` (the address a docs site serves each at: `guide/setup.md` → `base_url` + `guide/setup`; PDF and OpenAPI files always need it). Both bulk forms answer 200 with counts and one result per line or file; a bad line fails alone.",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: DocumentInput },
              "application/x-ndjson": {
                schema: { type: "string", description: "One DocumentInput JSON object per line." },
              },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    files: { type: "array", items: { type: "string", format: "binary" } },
                    base_url: {
                      type: "string",
                      description:
                        "URL of the folder, for files without a `url`: a file's URL is this joined with its name (a folder upload's relative path), as `url_style` says.",
                    },
                    url_style: {
                      type: "string",
                      enum: [...URL_STYLES],
                      default: "clean",
                      description:
                        "How a Markdown file's name becomes its address: `clean` drops .md/.markdown/.mdx (`guide/setup`), `slash` adds a slash (`guide/setup/`), `html` ends it in .html, `keep` keeps it; an `index`, `_index` or `README` page is its folder (`guide/`; `guide/index.html` in `html`).",
                    },
                  },
                },
              },
            },
          },
        } as never,
      },
    );
};

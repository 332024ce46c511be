/**
 * The knowledge front door: knowledge bases, their documents, ingest and search. Other folders
 * (chat, the CLI, the composition) use these; the files behind them are this folder's own.
 * - Which knowledge base a key may use: `resolveKnowledgeBase` (id or name, 404 otherwise),
 *   `knowledgeBasesOf` (the key's list), `defaultKnowledgeBaseFor`, `mayUse`.
 * - Search within one: `searchKnowledgeBase` (the agent's ranking, wire form).
 * - Routes: `knowledgeRoutes` (admin CRUD, uploads, search, a document's passages).
 * - File formats, for uploads, the CLI and web sources alike: `pdfToDocuments` (a PDF as one
 *   Markdown document), `openApiToDocuments` and `looksLikeOpenApi` (an OpenAPI spec as one
 *   document per operation); `parsePdf`/`parseOpenApi` (those as KnowledgeDocs, limits checked).
 */
import { Elysia } from "elysia";
import { passageRoutes } from "./passages.ts";
import { type KnowledgeDeps, knowledgeBaseRoutes, searchRoutes } from "./routes.ts";
import { uploadRoutes } from "./upload.ts";

export {
  createKnowledgeBase,
  DEFAULT_KB_ID,
  DEFAULT_KB_NAME,
  deleteKnowledgeBase,
  getKnowledgeBase,
  type KnowledgeBaseRow,
} from "./bases.ts";
export { utf8 } from "./bulk.ts";
export { CJK_RUN } from "./cjk.ts";
export { docsBase, isUrlStyle, URL_STYLES, type UrlStyle } from "./docs-url.ts";
export { deleteDocument, getDocument, putDocument } from "./documents.ts";
export { searchKnowledgeBase } from "./find.ts";
export {
  looksLikeOpenApi,
  MAX_OPENAPI_OPERATIONS,
  type OpenApiDocument,
  OpenApiError,
  type OpenApiProblem,
  openApiToDocuments,
} from "./formats-openapi.ts";
export {
  PDF_LIMITS,
  type PdfDocument,
  PdfError,
  type PdfLimits,
  type PdfProblem,
  pdfToDocuments,
} from "./formats-pdf.ts";
export { countDocuments, type IngestOptions, ingestDocuments } from "./ingest.ts";
export { lexemesOf } from "./lexemes.ts";
export {
  type FileSource,
  type KnowledgeDoc,
  type ParseProblem,
  parseFile,
  parseJsonl,
  parseMarkdown,
} from "./parse.ts";
export { formatOf, MAX_OPENAPI_BYTES, type Parsed, parseOpenApi, parsePdf } from "./parse-formats.ts";
export { reindexOnce } from "./reindex.ts";
export {
  defaultKnowledgeBaseFor,
  knowledgeBaseIdsByName,
  knowledgeBasesOf,
  mayUse,
  resolveKnowledgeBase,
} from "./retrieve.ts";
export type { KnowledgeDeps } from "./routes.ts";
export { queryTerms } from "./search.ts";
export { SEARCH_DEFAULTS } from "./search-options.ts";
export { seedSampleOnce } from "./seed.ts";
export {
  countSourceDocuments,
  deleteSourceDocumentsExcept,
  type SourceDeletion,
  sourceDocumentUrls,
} from "./source-documents.ts";

/** Every /knowledge_bases route. */
export const knowledgeRoutes = (deps: KnowledgeDeps) =>
  new Elysia().use(knowledgeBaseRoutes(deps)).use(uploadRoutes(deps)).use(searchRoutes(deps)).use(passageRoutes(deps));
export {
  backfillEmbeddings,
  createEmbedder,
  createSemanticSearch,
  type Embedder,
  type EmbeddingsConfig,
  MissingVectorExtension,
  prepareVectorStore,
  type SemanticSearch,
  semanticFromEnv,
} from "./embeddings/index.ts";
export { detectLanguage, LANGUAGES, type Language } from "./language.ts";
export {
  BulkResult,
  CreateKnowledgeBase,
  Document,
  DocumentInput,
  DocumentList,
  DocumentSummary,
  KnowledgeBase,
  KnowledgeBaseList,
  SearchBody,
  SearchResult,
  SearchResults,
  UpdateKnowledgeBase,
} from "./model.ts";
export { Passage, PassageList } from "./passages.ts";
export { contextOf, searchPassages, withWholeBestPage } from "./retrieve.ts";
export type { SearchHit } from "./search.ts";

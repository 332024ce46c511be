/** Wire schemas of the knowledge-base routes (validation and OpenAPI), tied to src/contract. */
import { type Static, t } from "elysia";
import * as Wire from "../contract/knowledge.ts";
import { ErrorPayload } from "../http/model.ts";
import { PageQuery, Pagination } from "../http/paging.ts";
import { literals, type Same } from "../http/schema-contract.ts";
import { LANGUAGES } from "./language.ts";

export const KnowledgeBase = t.Object({
  id: t.String({ description: "kb_… identifier" }),
  name: t.String({ description: "Unique name; `default` is the knowledge base of keys that name none." }),
  description: t.String(),
  language: t.Union([t.String(), t.Null()], {
    description: "Default language of its documents; null: detected per document.",
  }),
  document_count: t.Integer(),
  passage_count: t.Integer({ description: "Passages: the units search ranks and replies quote." }),
  bytes: t.Integer({ description: "Size of the documents' content, in UTF-8 bytes." }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time", description: "Moves with every change of it or of its documents." }),
});

export const KnowledgeBaseList = t.Object({ data: t.Array(KnowledgeBase), pagination: Pagination });

export const CreateKnowledgeBase = t.Object({
  name: t.String({
    minLength: 1,
    maxLength: 100,
    examples: ["product-docs"],
    error: "Invalid field 'name': 1–100 characters.",
  }),
  description: t.Optional(
    t.String({ maxLength: 2000, error: "Invalid field 'description': at most 2000 characters." }),
  ),
  language: t.Optional(
    t.Union([t.String({ maxLength: 40 }), t.Null()], {
      description: `Default language of its documents (a document's own \`language\` wins): one of ${LANGUAGES.join(", ")}; null or absent: detected per document.`,
      examples: ["english"],
      error: "Invalid field 'language': a language name or null.",
    }),
  ),
});

export const UpdateKnowledgeBase = t.Object({
  name: t.Optional(CreateKnowledgeBase.properties.name),
  description: CreateKnowledgeBase.properties.description,
  language: CreateKnowledgeBase.properties.language,
});

const kbId = t.String({ description: "kb_… identifier", examples: ["kb_01jd5x8r7mf6sb1b2k3n4p5q6r"] });
export const KbParams = t.Object({ id: kbId });
export const DocParams = t.Object({
  id: kbId,
  doc_id: t.String({ description: "doc_… identifier", examples: ["doc_01jd5x8r7mf6sb1b2k3n4p5q6r"] }),
});

export const DocumentSummary = t.Object({
  id: t.String({ description: "doc_… identifier" }),
  knowledge_base_id: t.String(),
  url: t.String({ description: "Canonical URL: unique within the knowledge base, cited as the source." }),
  title: t.String(),
  metadata: t.Record(t.String(), t.Unknown(), { description: "JSON object given at upload or in front matter." }),
  bytes: t.Integer(),
  passage_count: t.Integer(),
  source_id: t.Union([t.String(), t.Null()], {
    description: "The web source (src_…) whose syncs stored it; null: uploaded (a sync never touches it).",
  }),
  updated_at: t.String({ format: "date-time" }),
});

export const Document = t.Composite([
  DocumentSummary,
  t.Object({ content: t.String({ description: "The stored text." }) }),
]);

export const DocumentList = t.Object({ data: t.Array(DocumentSummary), pagination: Pagination });

export const DocumentQuery = t.Composite([
  PageQuery,
  t.Object({
    url_prefix: t.Optional(t.String({ maxLength: 2048, description: "Only documents whose URL starts with this." })),
  }),
]);

/** One document as JSON (POST …/documents with application/json; also each ndjson line). */
export const DocumentInput = t.Object({
  url: t.String({
    description: "Absolute http(s) URL, without credentials; the same URL replaces the document.",
    examples: ["https://docs.example/guide"],
  }),
  title: t.Optional(
    t.String({
      description:
        "At most 1,000 characters (400 above). Default: the first `# heading`, the HTML <title>, or the URL.",
      examples: ["Guide"],
    }),
  ),
  content: t.String({
    description: "The text (at most MAX_DOCUMENT_BYTES UTF-8 bytes).",
    examples: ["# Guide\n\nHow to get started."],
  }),
  format: t.Optional(
    literals(Wire.DOCUMENT_FORMATS, { description: "Default `markdown`; `html` is turned into text." }),
  ),
  metadata: t.Optional(
    t.Record(t.String(), t.Unknown(), {
      description: "Any JSON object, kept with the document: at most 16 KiB as JSON, nested at most 32 levels.",
    }),
  ),
  language: t.Optional(
    t.String({
      maxLength: 40,
      description: "The document's language (else its knowledge base's, else detected from its text).",
      examples: ["german"],
    }),
  ),
});

export const BulkItem = t.Object({
  line: t.Optional(t.Integer({ description: "1-based line of the ndjson body or .jsonl file." })),
  file: t.Optional(t.String({ description: "The multipart file." })),
  id: t.Optional(t.String()),
  url: t.Optional(t.String()),
  status: t.Union([t.Literal("created"), t.Literal("replaced"), t.Literal("failed")]),
  error: t.Optional(t.Omit(ErrorPayload, ["type"])),
});

export const BulkResult = t.Object({
  created: t.Integer(),
  replaced: t.Integer(),
  failed: t.Integer(),
  results: t.Array(BulkItem, { description: "One per non-blank line or per file, in order." }),
});

export const SearchBody = t.Object({
  query: t.String({
    minLength: 1,
    maxLength: 2000,
    examples: ["How do I create an API key?"],
    error: "Invalid field 'query': 1–2000 characters.",
  }),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 50, default: 8, error: "Invalid field 'limit': 1–50." })),
  conversation_id: t.Optional(
    t.String({
      description:
        "Search as the next turn of this conversation: its latest question joins the search as context (weighted below the query). A chat key's own conversations; an admin key's any.",
      error: "Invalid field 'conversation_id': a conversation id.",
    }),
  ),
});

export const SearchResult = t.Object({
  document_id: t.String(),
  url: t.String(),
  title: t.String(),
  heading: t.String(),
  content: t.String(),
  score: t.Number({ description: "BM25F score of the passage (higher is better); results come best page first." }),
});

export const QueryTerm = t.Object({
  term: t.String(),
  from: t.Union([t.Literal("message"), t.Literal("history")]),
  weight: t.Number({
    description:
      "Its weight in the question's coverage (0: a question word, a single character, or an acronym of the message's words that a title or heading writes).",
  }),
  known: t.Boolean({ description: "Whether the knowledge base has the term at all." }),
});

export const SearchResults = t.Object({
  data: t.Array(SearchResult),
  query: t.Object({ terms: t.Array(QueryTerm) }, { description: "The effective query: each term the search used." }),
});

true satisfies Same<Static<typeof KnowledgeBase>, Wire.KnowledgeBase>;
true satisfies Same<Static<typeof KnowledgeBaseList>, Wire.KnowledgeBaseList>;
true satisfies Same<Static<typeof DocumentSummary>, Wire.DocumentSummary>;
true satisfies Same<Static<typeof Document>, Wire.Document>;
true satisfies Same<Static<typeof DocumentList>, Wire.DocumentList>;
true satisfies Same<Static<typeof BulkItem>, Wire.BulkItem>;
true satisfies Same<Static<typeof BulkResult>, Wire.BulkResult>;
true satisfies Same<Static<typeof SearchResult>, Wire.SearchResult>;
true satisfies Same<Static<typeof SearchResults>, Wire.SearchResults>;

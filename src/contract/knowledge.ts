/** Knowledge bases, their documents and search, in wire form (dates are ISO 8601). */
import type { ErrorPayload } from "./errors.ts";
import type { Pagination } from "./resources.ts";

export interface KnowledgeBase {
  id: string;
  name: string;
  description: string;
  /**
   * Default language of its documents (a text-search configuration name, e.g. `english`,
   * `german`, `chinese`, `simple`); null: each document's language is detected from its text.
   */
  language: string | null;
  /** Documents, passages (the units search ranks) and the documents' content in UTF-8 bytes. */
  document_count: number;
  passage_count: number;
  bytes: number;
  created_at: string;
  /** Moves with every change of the knowledge base or of its documents. */
  updated_at: string;
}

export interface KnowledgeBaseList {
  data: KnowledgeBase[];
  pagination: Pagination;
}

/** How a document's `content` is read: Markdown headings split passages; HTML becomes text. */
export const DOCUMENT_FORMATS = ["markdown", "text", "html"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** A document as listed: everything but its content. */
export interface DocumentSummary {
  id: string;
  knowledge_base_id: string;
  url: string;
  title: string;
  metadata: Record<string, unknown>;
  bytes: number;
  passage_count: number;
  /** The web source (`src_…`) whose syncs stored it; null: uploaded, never touched by a sync. */
  source_id: string | null;
  updated_at: string;
}

/** GET …/documents/:id, and the answer of an upload. */
export interface Document extends DocumentSummary {
  content: string;
}

export interface DocumentList {
  data: DocumentSummary[];
  pagination: Pagination;
}

/** What happened to one line (ndjson, .jsonl) or file of a bulk upload. */
export interface BulkItem {
  /** 1-based line of the ndjson body or of a .jsonl file. */
  line?: number;
  /** The multipart file it came from. */
  file?: string;
  /** The stored document, when it was stored. */
  id?: string;
  url?: string;
  status: "created" | "replaced" | "failed";
  error?: Omit<ErrorPayload, "type">;
}

/** The answer of a bulk upload: counts and one item per line or file, in order. */
export interface BulkResult {
  created: number;
  replaced: number;
  failed: number;
  results: BulkItem[];
}

/** One ranked passage of POST …/search. */
export interface SearchResult {
  document_id: string;
  url: string;
  title: string;
  heading: string;
  content: string;
  score: number;
}

/** A term of the effective query: what was searched, where it came from, how much it weighed. */
export interface QueryTerm {
  term: string;
  /** The message searched, or the conversation it continues (`conversation_id`). */
  from: "message" | "history";
  /** Its weight in the question's coverage (0: a question word, a single character, or an acronym of the message's words). */
  weight: number;
  /** Whether the knowledge base has the term at all. */
  known: boolean;
}

export interface SearchResults {
  data: SearchResult[];
  /** The effective query: each term the search used. */
  query: { terms: QueryTerm[] };
}

/** A passage of a document: the unit search ranks and replies cite, as ingest cut it. */
export interface Passage {
  id: string;
  /** Its place in the document, from 0. */
  position: number;
  /** The heading it sits under ("" when none). */
  heading: string;
  content: string;
}

/** GET …/documents/:doc_id/passages: every passage of the document, in document order. */
export interface PassageList {
  document_id: string;
  data: Passage[];
}

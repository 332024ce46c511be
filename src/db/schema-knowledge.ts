/**
 * The knowledge tables of the one Drizzle schema (re-exported by schema.ts, which drizzle-kit
 * reads): knowledge bases, their documents and passages, and the search statistics.
 */
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
// A cycle of modules, not of values: each side names the other's columns in callbacks only.
import { sources } from "./schema-sources.ts";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

/**
 * Knowledge bases: named sets of documents. Every document belongs to one; a key may use a set
 * of them (key_knowledge_bases), an admin key all. Migration 0009 creates the one named
 * `default` (id DEFAULT_KB_ID), where the documents of earlier versions went.
 */
export const knowledgeBases = pgTable(
  "knowledge_bases",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** Default language of its documents (knowledge/language.ts); null: detected per document. */
    language: text("language"),
    createdAt: ts("created_at").notNull(),
    /** Moves with every change of the knowledge base or of its documents. */
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("knowledge_bases_name_uq").on(t.name),
    index("knowledge_bases_created_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);

/**
 * The `default` knowledge base's id (created by migration 0009). It is also the default of the
 * `kb_id` columns below, which is how documents of earlier versions moved into it; every write
 * names its knowledge base.
 */
export const DEFAULT_KB_ID = "kb_01m85g5npgfzrtbs7dcm30btjf";

/** Knowledge-base documents, unique by URL within their knowledge base: re-ingesting a URL replaces it. */
export const documents = pgTable(
  "documents",
  {
    id: text("id").primaryKey(),
    kbId: text("kb_id")
      .notNull()
      .default(DEFAULT_KB_ID)
      .references(() => knowledgeBases.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    title: text("title").notNull(),
    content: text("content").notNull(),
    /** Free-form JSON object given at upload (front matter, the `metadata` field). */
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    /** Language name (knowledge/language.ts): picks the text-search configuration of its passages. */
    language: text("language").notNull().default("english"),
    /**
     * Where `language` came from: the document's own (`explicit`), its knowledge base's setting
     * when it was stored (`knowledge_base`), or detection from its text (`detected`). Changing the
     * knowledge base's language re-indexes the documents that did not bring their own
     * (knowledge/relanguage.ts). Writers name it; the default suits a writer that sets `language`.
     */
    languageSource: text("language_source").notNull().default("explicit"),
    /**
     * The web source that stored it (its syncs write and delete only their own documents), or
     * null for a document uploaded by hand, which a sync never touches. Deleting the source
     * deletes its documents.
     */
    sourceId: text("source_id").references((): AnyPgColumn => sources.id, { onDelete: "cascade" }),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    check("documents_language_source_ck", sql`${t.languageSource} in ('explicit', 'knowledge_base', 'detected')`),
    uniqueIndex("documents_kb_url_uq").on(t.kbId, t.url),
    // Lists page a knowledge base's documents newest first by id (TypeIDs sort by creation).
    index("documents_kb_id_idx").on(t.kbId, t.id.desc().nullsFirst()),
    index("documents_source_idx").on(t.sourceId),
  ],
);

/**
 * Passages of documents, the unit of retrieval. `tsv` holds three weighted fields — the
 * document's title (A), the passage's heading (B) and its body (C) — written by ingest in the
 * same statement as the row; `len` is the passage's length in words (BM25's length
 * normalisation; search reads the per-field term counts from `tsv`). Statement triggers
 * (migrations 0006, 0024) keep knowledge_base_terms and knowledge_base_stats in step with every
 * insert, update and delete, in the same transaction.
 */
export const chunks = pgTable(
  "chunks",
  {
    id: text("id").primaryKey(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id, { onDelete: "cascade" }),
    /** Its document's knowledge base (denormalised: search takes candidates of one knowledge base from the index). */
    kbId: text("kb_id").notNull().default(DEFAULT_KB_ID),
    ord: integer("ord").notNull(),
    heading: text("heading").notNull(),
    content: text("content").notNull(),
    tsv: tsvector("tsv").notNull(),
    len: integer("len").notNull().default(0),
    /**
     * Its length in the words a reader counts: `len` but for CJK text, where `len` counts the
     * pairs and characters indexed beside each word. The knowledge base's size in words, which
     * the abstention scales by. Null (a row an earlier release wrote): the same as `len`.
     */
    words: integer("words"),
    /**
     * No longer written or read (search reads term counts from `tsv`, drizzle/0021). Kept for
     * one release so that instances still running the previous code during a rolling deploy on
     * one PostgreSQL keep working (their ingest writes it, their search reads it); drop it then.
     */
    tfs: jsonb("tfs").notNull().default(sql`'{}'::jsonb`),
  },
  (t) => [
    index("chunks_tsv_idx").using("gin", t.tsv),
    // No index on kb_id on purpose: search must take candidates from the GIN index and filter
    // them by knowledge base (knowledge_candidates_in), never scan one knowledge base's passages.
    index("chunks_document_idx").on(t.documentId, t.ord),
  ],
);

/**
 * The whole store's statistics before they were kept per knowledge base (knowledgeBaseTerms,
 * knowledgeBaseStats): no longer written or read (drizzle/0024). Kept for one release so that
 * instances still running the previous code during a rolling deploy on one PostgreSQL keep
 * searching (with statistics that stopped moving); drop them then.
 */
export const knowledgeTerms = pgTable("knowledge_terms", {
  lexeme: text("lexeme").primaryKey(),
  df: integer("df").notNull(),
});

/** One row (id 1): the store's passage count and total length. No longer written or read (see knowledgeTerms). */
export const knowledgeStats = pgTable("knowledge_stats", {
  id: integer("id").primaryKey(),
  passages: bigint("passages", { mode: "number" }).notNull(),
  totalLen: bigint("total_len", { mode: "number" }).notNull(),
});

/**
 * Per stemmed term and knowledge base, how many of its passages contain it: BM25's document
 * frequency for a search of that knowledge base, so its scores, and whether it answers, never
 * depend on another knowledge base's documents. Summed per term, how many postings the term has
 * in the GIN index (search picks its candidate terms by that cost).
 */
export const knowledgeBaseTerms = pgTable(
  "knowledge_base_terms",
  {
    kbId: text("kb_id").notNull(),
    lexeme: text("lexeme").notNull(),
    df: integer("df").notNull(),
  },
  // Lexeme first: a search reads one knowledge base's row of a term and the term's rows of all.
  (t) => [primaryKey({ columns: [t.lexeme, t.kbId] })],
);

/** Per knowledge base with passages: their count and total length (its IDF and average length). */
export const knowledgeBaseStats = pgTable("knowledge_base_stats", {
  kbId: text("kb_id").primaryKey(),
  passages: bigint("passages", { mode: "number" }).notNull(),
  totalLen: bigint("total_len", { mode: "number" }).notNull(),
  /** Their words as a reader counts them (chunks.words, else len): the knowledge base's size. */
  totalWords: bigint("total_words", { mode: "number" }).notNull().default(0),
});

/**
 * Knowledge bases: create, page, read (with counts), rename or set the language, delete (which
 * of them a key may use: retrieve.ts). Names are unique (the database's unique index decides: a
 * duplicate is 409 `already_exists`).
 */
import { desc, eq, sql } from "drizzle-orm";
import type { KnowledgeBase } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { sqlState } from "../db/errors.ts";
import { DEFAULT_KB_ID, knowledgeBases } from "../db/schema.ts";
import { type Cursor, encodeCursor } from "../http/cursor.ts";
import { ApiError, clip } from "../http/errors.ts";
import { isId, newId } from "../primitives.ts";
import { mergePendingIndexEntries, withDeadlockRetry } from "./ingest.ts";
import { isLanguage, LANGUAGES, type Language } from "./language.ts";
import { applyKnowledgeBaseLanguage } from "./language-source.ts";

export { DEFAULT_KB_ID };

/** The name keys without a list of knowledge bases get, and where the sample is seeded. */
export const DEFAULT_KB_NAME = "default";

export type KnowledgeBaseRow = typeof knowledgeBases.$inferSelect;

const MAX_NAME = 100;
const MAX_DESCRIPTION = 2_000;
const invalid = (param: string, message: string) => new ApiError("invalid_request", message, { param });

function checkName(name: string): string {
  const n = name.trim();
  // A name is also how the CLI (`ingest --kb NAME`) and chat clients refer to it: no control characters.
  if (!n || n.length > MAX_NAME || /[\p{Cc}]/u.test(n))
    throw invalid("name", `name must be 1–${MAX_NAME} characters without control characters.`);
  return n;
}

function checkDescription(d: string): string {
  if (d.length > MAX_DESCRIPTION || d.includes("\0"))
    throw invalid("description", `description must be at most ${MAX_DESCRIPTION} characters, without NUL.`);
  return d;
}

/** A language name or null (detect per document); anything else is a 400 naming the field. */
function checkLanguage(l: string | null): string | null {
  if (l === null || isLanguage(l)) return l;
  throw invalid("language", `language must be one of ${LANGUAGES.join(", ")}, or null to detect it per document.`);
}

const taken = (name: string) =>
  new ApiError("already_exists", `A knowledge base named '${clip(name)}' already exists.`, { param: "name" });

/**
 * A knowledge base with its counts, computed from the documents (each an index range). The outer
 * column is written out qualified: Drizzle renders a one-table select's columns unqualified, and
 * inside the subquery "id" would name the document's.
 */
const withCounts = {
  row: knowledgeBases,
  documents: sql<number>`(select count(*) from documents d where d.kb_id = "knowledge_bases"."id")::int`,
  passages: sql<number>`(select count(*) from documents d join chunks c on c.document_id = d.id where d.kb_id = "knowledge_bases"."id")::int`,
  bytes: sql<number>`(select coalesce(sum(octet_length(d.content)), 0) from documents d where d.kb_id = "knowledge_bases"."id")::float8`,
};
type Counted = { row: KnowledgeBaseRow; documents: number; passages: number; bytes: number };

export const toKnowledgeBase = ({ row, documents, passages, bytes }: Counted): KnowledgeBase => ({
  id: row.id,
  name: row.name,
  description: row.description,
  language: row.language,
  document_count: Number(documents),
  passage_count: Number(passages),
  bytes: Number(bytes),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export async function createKnowledgeBase(
  db: Db,
  input: { name: string; description?: string; language?: string | null },
  now = new Date(),
): Promise<KnowledgeBase> {
  const row = {
    id: newId("kb"),
    name: checkName(input.name),
    description: checkDescription(input.description ?? ""),
    language: checkLanguage(input.language ?? null),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.insert(knowledgeBases).values(row);
  } catch (error) {
    if (sqlState(error) === "23505") throw taken(row.name);
    throw error;
  }
  return toKnowledgeBase({ row, documents: 0, passages: 0, bytes: 0 });
}

export async function getKnowledgeBase(db: Db, id: string): Promise<KnowledgeBase | null> {
  if (!isId("kb", id)) return null;
  const [found] = await db.select(withCounts).from(knowledgeBases).where(eq(knowledgeBases.id, id));
  return found ? toKnowledgeBase(found) : null;
}

/** A page of knowledge bases, newest first (keyset on created_at, id), with their counts. */
export async function pageKnowledgeBases(db: Db, limit: number, cursor: Cursor | null) {
  const rows = await db
    .select(withCounts)
    .from(knowledgeBases)
    .where(
      cursor
        ? sql`(${knowledgeBases.createdAt}, ${knowledgeBases.id}) < (${new Date(cursor.createdAt).toISOString()}::timestamptz, ${cursor.id})`
        : undefined,
    )
    .orderBy(desc(knowledgeBases.createdAt), desc(knowledgeBases.id))
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1)?.row;
  return {
    data: page.map(toKnowledgeBase),
    pagination: {
      has_more: hasMore,
      next_cursor:
        hasMore && last ? await encodeCursor(db, { createdAt: last.createdAt.getTime(), id: last.id }) : null,
    },
  };
}

/**
 * Renames, redescribes or sets the language; null when there is no such knowledge base. A new
 * language re-indexes, in the same transaction, the documents that did not bring their own
 * (language-source.ts).
 */
export async function updateKnowledgeBase(
  db: Db,
  id: string,
  changes: { name?: string; description?: string; language?: string | null },
  now = new Date(),
): Promise<KnowledgeBase | null> {
  if (!isId("kb", id)) return null;
  const set = {
    updatedAt: now,
    ...(changes.name !== undefined ? { name: checkName(changes.name) } : {}),
    ...(changes.description !== undefined ? { description: checkDescription(changes.description) } : {}),
    ...(changes.language !== undefined ? { language: checkLanguage(changes.language) } : {}),
  };
  let relanguaged = 0;
  try {
    const found = await withDeadlockRetry(() =>
      db.transaction(async (tx) => {
        const [old] = await tx
          .select({ language: knowledgeBases.language })
          .from(knowledgeBases)
          .where(eq(knowledgeBases.id, id))
          .for("update");
        if (!old) return false;
        await tx.update(knowledgeBases).set(set).where(eq(knowledgeBases.id, id));
        if (set.language !== undefined && set.language !== old.language)
          relanguaged = await applyKnowledgeBaseLanguage(tx, id, set.language as Language | null);
        return true;
      }),
    );
    if (!found) return null;
  } catch (error) {
    if (sqlState(error) === "23505") throw taken(set.name ?? "");
    throw error;
  }
  if (relanguaged > 0) await mergePendingIndexEntries(db);
  return getKnowledgeBase(db, id);
}

/** Deletes a knowledge base with its documents and passages (ON DELETE CASCADE); false when absent. */
export async function deleteKnowledgeBase(db: Db, id: string): Promise<boolean> {
  if (!isId("kb", id)) return false;
  const rows = await db.delete(knowledgeBases).where(eq(knowledgeBases.id, id)).returning({ id: knowledgeBases.id });
  return rows.length === 1;
}

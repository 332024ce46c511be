/**
 * Knowledge bases: create, page, read (with counts), rename, delete; and which of them a key may
 * use. Names are unique (the database's unique index decides: a duplicate is 409 `already_exists`).
 */
import { desc, eq, sql } from "drizzle-orm";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { KnowledgeBase } from "../contract/knowledge.ts";
import type { Db } from "../db/client.ts";
import { sqlState } from "../db/errors.ts";
import { DEFAULT_KB_ID, knowledgeBases } from "../db/schema.ts";
import { type Cursor, encodeCursor } from "../http/cursor.ts";
import { ApiError } from "../http/errors.ts";
import { clip } from "../http/text.ts";
import { isId, newId } from "../ids.ts";
import { isLanguage, LANGUAGES } from "./language.ts";

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

/** Renames or redescribes; null when there is no such knowledge base. */
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
  try {
    const rows = await db
      .update(knowledgeBases)
      .set(set)
      .where(eq(knowledgeBases.id, id))
      .returning({ id: knowledgeBases.id });
    if (rows.length === 0) return null;
  } catch (error) {
    if (sqlState(error) === "23505") throw taken(set.name ?? "");
    throw error;
  }
  return getKnowledgeBase(db, id);
}

/** Deletes a knowledge base with its documents and passages (ON DELETE CASCADE); false when absent. */
export async function deleteKnowledgeBase(db: Db, id: string): Promise<boolean> {
  if (!isId("kb", id)) return false;
  const rows = await db.delete(knowledgeBases).where(eq(knowledgeBases.id, id)).returning({ id: knowledgeBases.id });
  return rows.length === 1;
}

/** Whether `key` may use knowledge base `id`: an admin key every one, a chat key those granted. */
export const mayUse = (key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">, id: string): boolean =>
  key.role === "admin" || key.knowledgeBaseIds.includes(id);

const notFound = (ref: string, param: string) =>
  new ApiError("not_found", `No knowledge base '${clip(ref)}'.`, { param });

/**
 * The knowledge base `ref` (an id, or a name) if `key` may use it; otherwise the same 404 as for
 * one that does not exist, naming `param`. What chat, search and the document routes call.
 */
export async function resolveKnowledgeBase(
  db: Db,
  key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">,
  ref: string,
  param = "knowledge_base_id",
): Promise<KnowledgeBaseRow> {
  const [row] = await db
    .select()
    .from(knowledgeBases)
    .where(isId("kb", ref) ? eq(knowledgeBases.id, ref) : eq(knowledgeBases.name, ref));
  if (!row || !mayUse(key, row.id)) throw notFound(ref, param);
  return row;
}

/**
 * The knowledge base a chat without `knowledge_base_id` uses: the key's only one; else the one
 * named `default` if the key may use it; else the key's oldest. Null: the key may use none (its
 * replies then find nothing).
 */
export async function defaultKnowledgeBaseFor(
  db: Db,
  key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">,
): Promise<string | null> {
  if (key.role !== "admin" && key.knowledgeBaseIds.length === 1) return key.knowledgeBaseIds[0]!;
  const rows = await db
    .select({ id: knowledgeBases.id, name: knowledgeBases.name })
    .from(knowledgeBases)
    .orderBy(knowledgeBases.createdAt, knowledgeBases.id);
  const usable = rows.filter((r) => mayUse(key, r.id));
  return (usable.find((r) => r.name === DEFAULT_KB_NAME) ?? usable[0])?.id ?? null;
}

/** Knowledge base ids by name (the CLI's `--kb NAME`); an unknown name is an error naming it. */
export async function knowledgeBaseIdsByName(db: Db, names: string[]): Promise<string[]> {
  const rows = await db.select({ id: knowledgeBases.id, name: knowledgeBases.name }).from(knowledgeBases);
  return names.map((n) => {
    const found = rows.find((r) => r.name === n || r.id === n);
    if (!found) throw new Error(`no knowledge base named '${n}'`);
    return found.id;
  });
}

/** The knowledge bases `key` may use, oldest first (every one for an admin key). */
export async function knowledgeBasesOf(
  db: Db,
  key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">,
): Promise<KnowledgeBaseRow[]> {
  const rows = await db.select().from(knowledgeBases).orderBy(knowledgeBases.createdAt, knowledgeBases.id);
  return rows.filter((r) => mayUse(key, r.id));
}

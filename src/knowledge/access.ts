/**
 * Which knowledge bases a key may use: an admin key every one, a chat key those granted
 * (`key_knowledge_bases`); finding one by id or name, the default of a chat that names none.
 */
import { eq } from "drizzle-orm";
import type { ApiKeyInfo } from "../auth/index.ts";
import type { Db } from "../db/client.ts";
import { knowledgeBases } from "../db/schema.ts";
import { notFound } from "../http/errors.ts";
import { isId } from "../ids.ts";
import { DEFAULT_KB_NAME, type KnowledgeBaseRow } from "./bases.ts";

/** Whether `key` may use knowledge base `id`: an admin key every one, a chat key those granted. */
export const mayUse = (key: Pick<ApiKeyInfo, "role" | "knowledgeBaseIds">, id: string): boolean =>
  key.role === "admin" || key.knowledgeBaseIds.includes(id);

const kbNotFound = (ref: string, param: string) => notFound("knowledge base", ref, param);

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
  if (!row || !mayUse(key, row.id)) throw kbNotFound(ref, param);
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

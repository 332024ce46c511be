/**
 * A Chat Completions `model` is a knowledge base the key may use, by name or id; `default`
 * names the key's default. This file is the one place that resolves and lists them (through the
 * knowledge front door), for this door and for MCP.
 */
import type { ApiKeyInfo } from "../auth/index.ts";
import type { Db } from "../db/client.ts";
import { ApiError, clip } from "../http/errors.ts";
import {
  defaultKnowledgeBaseFor,
  type KnowledgeBaseRow,
  knowledgeBasesOf,
  resolveKnowledgeBase,
} from "../knowledge/index.ts";

/** A knowledge base as a Chat Completions model. */
export interface KnowledgeModel {
  /** What `model` names it by in answers: the knowledge base's name. */
  id: string;
  knowledgeBaseId: string;
  /** Seconds since the epoch. */
  created: number;
}

const asModel = (kb: KnowledgeBaseRow): KnowledgeModel => ({
  id: kb.name,
  knowledgeBaseId: kb.id,
  created: Math.floor(kb.createdAt.getTime() / 1000),
});

/** The knowledge bases `key` may use, oldest first. */
export async function modelsOf(db: Db, key: ApiKeyInfo): Promise<KnowledgeModel[]> {
  return (await knowledgeBasesOf(db, key)).map(asModel);
}

/** The knowledge base `model` names, if `key` may use it; 404 in the same words for unknown and foreign. */
export async function resolveModel(db: Db, key: ApiKeyInfo, model: string, param = "model"): Promise<KnowledgeModel> {
  const notFound = () =>
    new ApiError("not_found", `The model '${clip(model)}' does not exist or this key may not use it.`, { param });
  try {
    const ref = model === "default" ? await defaultKnowledgeBaseFor(db, key) : model;
    if (ref === null) throw notFound();
    return asModel(await resolveKnowledgeBase(db, key, ref, param));
  } catch (error) {
    throw error instanceof ApiError && error.code === "not_found" ? notFound() : error;
  }
}

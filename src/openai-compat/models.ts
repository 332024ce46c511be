/**
 * A Chat Completions `model` is a knowledge base the key may use, by name or id; `default`
 * names the key's default. This file is the one place that resolves and lists them, so the
 * knowledge-base service plugs in here alone.
 */
import type { ApiKeyInfo } from "../auth/index.ts";
import { ApiError } from "../http/errors.ts";
import { clip } from "../http/text.ts";

/** A knowledge base as a Chat Completions model. */
export interface KnowledgeModel {
  /** What `model` names it by in answers (the knowledge base's name). */
  id: string;
  /** The knowledge base's id, when it has one of its own. */
  knowledgeBaseId: string | null;
  /** Seconds since the epoch. */
  created: number;
}

/**
 * The knowledge bases `key` may use. Until knowledge bases are resources of their own, the store
 * holds one, named `default`, which every key may use.
 */
export async function modelsOf(_key: ApiKeyInfo): Promise<KnowledgeModel[]> {
  return [{ id: "default", knowledgeBaseId: null, created: 0 }];
}

/** The knowledge base `model` names, if `key` may use it; 404 in the same words for unknown and foreign. */
export async function resolveModel(key: ApiKeyInfo, model: string): Promise<KnowledgeModel> {
  const found = (await modelsOf(key)).find((m) => m.id === model || m.knowledgeBaseId === model);
  if (!found)
    throw new ApiError("not_found", `The model '${clip(model)}' does not exist or this key may not use it.`, {
      param: "model",
    });
  return found;
}
